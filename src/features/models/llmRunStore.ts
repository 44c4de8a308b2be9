/**
 * The models view's language-model curve: the endpoint the user typed answers the same kind of
 * fresh test puzzles as the shipped models (src/ml/testData.ts, clean, task 1's stories, our
 * paraphrases split by the models' training seed), `rows` per k, and its accuracy by k is kept
 * with Wilson intervals, unparseable replies counted (as wrong) and shown.
 */
import { create } from 'zustand';
import { CLASSES } from '../../ml/encoding';
import { testQuestions } from '../../ml/testData';
import { LlmError, type LlmEndpoint, type LlmTransport } from '../../llm/client';
import { PROMPTS, type PromptKind } from '../../llm/prompt';
import { askItems, type LlmItem } from '../../llm/run';
import { REPORT_KS } from './report';

export interface LlmKScore {
  readonly k: number;
  readonly rows: number;
  readonly correct: number;
  readonly unparseable: number;
  readonly errors: number;
}

export interface LlmRunState {
  readonly status: 'idle' | 'running' | 'done' | 'cancelled' | 'error';
  readonly message: string;
  readonly progress: { readonly done: number; readonly total: number };
  readonly run: {
    readonly model: string;
    readonly prompt: PromptKind;
    readonly rows: number;
    readonly seed: string;
  } | null;
  readonly byK: readonly LlmKScore[];
}

export interface LlmRunActions {
  start(endpoint: LlmEndpoint, prompt: PromptKind, rows: number, seed: string): Promise<void>;
  cancel(): void;
}

/** The training seed that split the shipped models' paraphrases (their test stories are held out under it). */
const SPLIT_SEED = 1;
export const LLM_MAX_ROWS = 200;

/** The test puzzles of one k as language-model items (the gold word from the question's label). */
export function llmTestItems(seed: string, k: number, rows: number): LlmItem[] {
  return testQuestions(seed, 'clean', k, rows, SPLIT_SEED).map((q, i) => ({
    id: `k${k}-${i}`,
    story: q.story,
    a: q.queryNames[0],
    b: q.queryNames[1],
    gold: CLASSES[q.graph.label] ?? '',
  }));
}

export function createLlmRunStore(
  transport: (signal: AbortSignal) => LlmTransport,
  explain: (e: unknown, url: string) => string,
  ks: readonly number[] = REPORT_KS,
) {
  let controller: AbortController | null = null;
  return create<LlmRunState & LlmRunActions>()((set, get) => ({
    status: 'idle',
    message: '',
    progress: { done: 0, total: 0 },
    run: null,
    byK: [],

    async start(endpoint, prompt, rows, seed) {
      controller?.abort();
      const mine = new AbortController();
      controller = mine;
      const live = () => controller === mine;
      set({
        status: 'running',
        message: '',
        run: { model: endpoint.model, prompt, rows, seed },
        byK: [],
        progress: { done: 0, total: ks.length * rows },
      });
      let done = 0;
      try {
        for (const k of ks) {
          const results = await askItems(
            llmTestItems(seed, k, rows),
            { endpoint, prompt, sampling: { temperature: 0, maxTokens: PROMPTS[prompt].maxTokens }, concurrency: 4 },
            transport(mine.signal),
            () => {
              if (live()) set({ progress: { done: ++done, total: ks.length * rows } });
            },
          );
          if (!live()) return;
          const score: LlmKScore = {
            k,
            rows: results.length,
            correct: results.filter((r) => r.correct).length,
            unparseable: results.filter((r) => r.outcome === 'unparseable').length,
            errors: results.filter((r) => r.outcome === 'error').length,
          };
          set({ byK: [...get().byK, score] });
        }
        const un = get().byK.reduce((s, r) => s + r.unparseable, 0);
        set({ status: 'done', message: `${endpoint.model} answered ${done} puzzles; unparseable=${un}.` });
      } catch (e) {
        if (!live() || (e instanceof LlmError && e.kind === 'cancelled')) return;
        set({ status: 'error', message: explain(e, endpoint.url) });
      }
    },

    cancel() {
      if (get().status !== 'running') return;
      controller?.abort();
      controller = null;
      set({ status: 'cancelled', message: 'Cancelled; the k done so far stay.' });
    },
  }));
}
