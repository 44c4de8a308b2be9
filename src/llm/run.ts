/**
 * Asking a language model many questions: a bounded number at once, each item's exact prompt,
 * reply, parsed answer, time and tokens kept. Pure (the transport is injected).
 */
import { answerWordOf, type AnswerWord, extractAnswer } from './answers';
import {
  chatCompletion,
  LlmError,
  type LlmEndpoint,
  type LlmSampling,
  type LlmTransport,
  type TokenCounts,
} from './client';
import { type LlmQuestion, type PromptKind, promptText } from './prompt';

export interface LlmItem extends LlmQuestion {
  readonly id: string;
  /** The item's answer, when it is known (a CSV's target, a study's gold word). */
  readonly gold?: string;
}

/** One item's record: what was sent, what came back, what it was read as. */
export interface LlmItemResult {
  readonly id: string;
  readonly prompt: string;
  /** The reply's text; null when the request failed (`error`). */
  readonly reply: string | null;
  readonly outcome: 'answer' | 'unparseable' | 'error';
  readonly answer: AnswerWord | null;
  /** Why the reply could not be read, or why the request failed. */
  readonly reason: string | null;
  readonly gold: string | null;
  /** An answer equal to the gold word; unparseable and failed items count as wrong. */
  readonly correct: boolean;
  readonly ms: number | null;
  readonly tokens: TokenCounts | null;
  readonly attempts: number;
}

export interface LlmRunSettings {
  readonly endpoint: LlmEndpoint;
  readonly prompt: PromptKind;
  readonly sampling: LlmSampling;
  /** How many requests may be in flight at once (at least 1). */
  readonly concurrency: number;
}

/**
 * Asks one item. A refused or failed HTTP request, or an unreadable reply, becomes an `error`
 * record (the run goes on); a network failure (no server, a refused origin) or a cancel is thrown.
 */
export async function askItem(
  item: LlmItem,
  settings: LlmRunSettings,
  transport: LlmTransport,
): Promise<LlmItemResult> {
  const prompt = promptText(settings.prompt, item);
  const gold = item.gold === undefined ? null : item.gold;
  const goldWord = gold === null ? null : answerWordOf(gold);
  const base = { id: item.id, prompt, gold };
  try {
    const reply = await chatCompletion(settings.endpoint, prompt, settings.sampling, transport);
    const read = extractAnswer(reply.text);
    const answer = read.kind === 'answer' ? read.word : null;
    return {
      ...base,
      reply: reply.text,
      outcome: read.kind,
      answer,
      reason: read.kind === 'unparseable' ? read.reason : null,
      correct: answer !== null && answer === goldWord,
      ms: reply.ms,
      tokens: reply.tokens,
      attempts: reply.attempts,
    };
  } catch (e) {
    if (e instanceof LlmError && (e.kind === 'cancelled' || e.kind === 'network')) throw e;
    return {
      ...base,
      reply: null,
      outcome: 'error',
      answer: null,
      reason: (e as Error).message,
      correct: false,
      ms: null,
      tokens: null,
      attempts: 0,
    };
  }
}

/**
 * Asks every item, at most `concurrency` at once; `onResult` hears each as it comes (any order);
 * the returned list is in item order. Network failures (a refused origin, a server not running)
 * stop the run: every other item would fail the same way.
 */
export async function askItems(
  items: readonly LlmItem[],
  settings: LlmRunSettings,
  transport: LlmTransport,
  onResult?: (result: LlmItemResult, index: number) => void,
): Promise<LlmItemResult[]> {
  const results: LlmItemResult[] = new Array(items.length);
  let next = 0;
  let stop: unknown = null;
  const worker = async () => {
    while (stop === null && next < items.length) {
      const i = next++;
      try {
        const r = await askItem(items[i]!, settings, transport);
        results[i] = r;
        onResult?.(r, i);
      } catch (e) {
        stop ??= e;
      }
    }
  };
  const n = Math.max(1, Math.min(Math.floor(settings.concurrency) || 1, items.length || 1));
  await Promise.all(Array.from({ length: n }, worker));
  if (stop !== null) throw stop;
  return results;
}

/** Counts over a run's records. */
export function tally(results: readonly LlmItemResult[]) {
  return {
    rows: results.length,
    correct: results.filter((r) => r.correct).length,
    unparseable: results.filter((r) => r.outcome === 'unparseable').length,
    errors: results.filter((r) => r.outcome === 'error').length,
  };
}
