import { create } from 'zustand';
import { endpointOrigin, LlmError, type LlmEndpoint, type LlmTransport } from '../../llm/client';
import { PROMPTS, type PromptKind } from '../../llm/prompt';
import { askItems, type LlmItemResult } from '../../llm/run';
import { explainFailure, pageOrigin, pageTransport } from '../../llm/session/ask';
import type { ModelIndexEntry } from '../../ml/model';
import { createGeneratorClient } from '../../worker/generatorClient';
import type { ModelsClient } from '../../worker/modelsClient';
import { isCancelled } from '../../worker/rpc';
import type { AnsweredItem } from '../../study/results/figures';
import {
  llmItemOf,
  modelItemAnswer,
  rebuildItem,
  storyRequestFor,
  STUDY_TEXT_SPLITS,
  type ModelItemAnswer,
  type RebuiltItem,
} from './modelItems';

/** What the comparison needs of the models worker client (tests pass a fake). */
export type CompareClient = Pick<ModelsClient, 'index' | 'load' | 'answer' | 'reset'>;

/** Rebuilds one item's puzzle and story (the generator worker in the app; the handlers in tests). */
export type StoryMaker = (
  body: ReturnType<typeof storyRequestFor>,
) => Promise<{ puzzle: Parameters<typeof rebuildItem>[1]; story: Parameters<typeof rebuildItem>[2][number] }>;

export interface CompareState {
  readonly status: 'idle' | 'rebuilding' | 'answering' | 'done' | 'cancelled' | 'error';
  readonly progress: { readonly done: number; readonly total: number; readonly label: string };
  readonly message: string;
  /** The main models asked, in index order. */
  readonly models: readonly ModelIndexEntry[];
  /** By item key: the question, or why it could not be rebuilt. */
  readonly rebuilt: Readonly<Record<string, RebuiltItem>>;
  /** By model id, then item key. */
  readonly answers: Readonly<Record<string, Readonly<Record<string, ModelItemAnswer>>>>;
}

export interface CompareActions {
  /** Rebuilds the items (those not rebuilt yet) and asks every main model about them. */
  ask(items: readonly AnsweredItem[]): Promise<void>;
  cancel(): void;
}

const BATCH = 50;
const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

const IDLE: CompareState = {
  status: 'idle',
  progress: { done: 0, total: 0, label: '' },
  message: '',
  models: [],
  rebuilt: {},
  answers: {},
};

export function createCompareStore(client: () => CompareClient, story: StoryMaker, baseUrl: () => string) {
  let generation = 0;
  return create<CompareState & CompareActions>()((set, get) => ({
    ...IDLE,

    async ask(items) {
      const s0 = get().status;
      if (s0 === 'rebuilding' || s0 === 'answering') return;
      const run = ++generation;
      const live = () => run === generation;
      const rebuilt: Record<string, RebuiltItem> = { ...get().rebuilt };
      const todo = items.filter((i) => !rebuilt[i.key]);
      set({
        status: 'rebuilding',
        message: '',
        progress: { done: 0, total: todo.length, label: 'Rebuilding the puzzles from their seeds' },
      });
      try {
        for (const [n, item] of todo.entries()) {
          const stories = [];
          let puzzle: Awaited<ReturnType<StoryMaker>>['puzzle'] | null = null;
          for (const split of STUDY_TEXT_SPLITS) {
            const made = await story(storyRequestFor(item, split));
            if (!live()) return;
            puzzle ??= made.puzzle;
            stories.push(made.story);
            const attempt = rebuildItem(item, puzzle, stories);
            // A different puzzle, or the very story: no other split can change the verdict.
            if (!attempt.ok || attempt.story === 'regenerated') break;
          }
          rebuilt[item.key] = rebuildItem(item, puzzle!, stories);
          set({ rebuilt: { ...rebuilt }, progress: { ...get().progress, done: n + 1 } });
        }

        const index = await client().index(baseUrl());
        if (!live()) return;
        const models = index.models.filter((m) => !m.version.includes('-'));
        if (models.length === 0) throw new Error('the model list has no main model');
        const asked = items.filter((i) => rebuilt[i.key]?.ok);
        set({
          status: 'answering',
          models,
          progress: { done: 0, total: models.length * asked.length, label: 'Asking the models' },
        });
        const answers: Record<string, Record<string, ModelItemAnswer>> = {};
        let done = 0;
        for (const m of models) {
          set({ progress: { ...get().progress, label: `Loading ${m.label}` } });
          await client().load(m.id, undefined, baseUrl());
          if (!live()) return;
          set({ progress: { ...get().progress, label: `Asking ${m.label}` } });
          const mine: Record<string, ModelItemAnswer> = {};
          for (let i = 0; i < asked.length; i += BATCH) {
            const part = asked.slice(i, i + BATCH);
            const questions = part.map((it) => {
              const r = rebuilt[it.key]!;
              if (!r.ok) throw new Error('unreachable');
              return r.question;
            });
            const { answers: got } = await client().answer(m.id, questions);
            if (!live()) return;
            part.forEach((it, j) => (mine[it.key] = modelItemAnswer(got[j]!.probs, it.gold)));
            done += part.length;
            answers[m.id] = { ...mine };
            set({ answers: { ...get().answers, ...answers }, progress: { ...get().progress, done } });
          }
        }
        const refused = items.filter((i) => rebuilt[i.key] && !rebuilt[i.key]!.ok).length;
        set({
          status: 'done',
          message: `${models.length} model${models.length === 1 ? '' : 's'} answered ${asked.length} item${asked.length === 1 ? '' : 's'}${refused ? `; ${refused} could not be rebuilt (listed below)` : ''}.`,
        });
      } catch (e) {
        if (!live() || isCancelled(e)) return;
        set({ status: 'error', message: `The models could not answer: ${messageOf(e)}` });
      }
    },

    cancel() {
      const s = get().status;
      if (s !== 'rebuilding' && s !== 'answering') return;
      generation++;
      if (s === 'answering') client().reset();
      set({ status: 'cancelled', message: 'Cancelled; the answers so far stay.' });
    },
  }));
}

/** The app's rebuilding: one generator worker of the dashboard's own, started on the first item. */
export function appStoryMaker(): StoryMaker {
  let generator: ReturnType<typeof createGeneratorClient> | null = null;
  return (body) => {
    generator ??= createGeneratorClient();
    return generator.request('story', body).promise;
  };
}

/** The language model's side of the comparison: the endpoint the user typed, asked on the same items. */
export interface LlmCompareState {
  readonly status: 'idle' | 'asking' | 'done' | 'cancelled' | 'error';
  readonly progress: { readonly done: number; readonly total: number };
  readonly message: string;
  /** Who answered, as asked (no key, no URL beyond its origin). */
  readonly run: { readonly model: string; readonly prompt: PromptKind; readonly origin: string } | null;
  /** By item key. */
  readonly answers: Readonly<Record<string, LlmItemResult>>;
}

export interface LlmCompareActions {
  ask(items: readonly AnsweredItem[], endpoint: LlmEndpoint, prompt: PromptKind): Promise<void>;
  cancel(): void;
}

const LLM_IDLE: LlmCompareState = {
  status: 'idle',
  progress: { done: 0, total: 0 },
  message: '',
  run: null,
  answers: {},
};

/**
 * The language model asked on every item people answered (the row's story and names, as the
 * person read them: no rebuilding needed), `concurrency` at once. A new run replaces the last one.
 * `transport` is the page's fetch in the app, a stub in tests; `explain` words a failure.
 */
export function createLlmCompareStore(
  transport: (signal: AbortSignal) => LlmTransport,
  explain: (e: unknown, url: string) => string = messageOf,
  concurrency = 4,
) {
  let controller: AbortController | null = null;
  return create<LlmCompareState & LlmCompareActions>()((set, get) => ({
    ...LLM_IDLE,

    async ask(items, endpoint, prompt) {
      controller?.abort();
      const mine = new AbortController();
      controller = mine;
      const live = () => controller === mine;
      let origin: string;
      try {
        origin = endpointOrigin(endpoint.url);
      } catch (e) {
        set({ ...LLM_IDLE, status: 'error', message: messageOf(e) });
        return;
      }
      const answers: Record<string, LlmItemResult> = {};
      set({
        status: 'asking',
        message: '',
        run: { model: endpoint.model, prompt, origin },
        answers: {},
        progress: { done: 0, total: items.length },
      });
      try {
        await askItems(
          items.map(llmItemOf),
          { endpoint, prompt, sampling: { temperature: 0, maxTokens: PROMPTS[prompt].maxTokens }, concurrency },
          transport(mine.signal),
          (r) => {
            if (!live()) return;
            answers[r.id] = r;
            set({ answers: { ...answers }, progress: { done: Object.keys(answers).length, total: items.length } });
          },
        );
        if (!live()) return;
        const all = Object.values(answers);
        const unparseable = all.filter((r) => r.outcome === 'unparseable').length;
        const failed = all.filter((r) => r.outcome === 'error');
        set({
          status: 'done',
          message:
            `${endpoint.model} answered ${all.length} item${all.length === 1 ? '' : 's'}; unparseable=${unparseable}` +
            (failed.length ? `; ${failed.length} got no usable reply (first: ${failed[0]!.reason})` : '') +
            '.',
        });
      } catch (e) {
        if (!live() || (e instanceof LlmError && e.kind === 'cancelled')) return;
        set({ status: 'error', message: explain(e, endpoint.url) });
      }
    },

    cancel() {
      if (get().status !== 'asking') return;
      controller?.abort();
      controller = null;
      set({ status: 'cancelled', message: 'Cancelled; the answers so far stay.' });
    },
  }));
}

/** The dashboard's language model: the page's fetch, failures explained with the settings that allow this page. */
export const useLlmCompare = createLlmCompareStore(pageTransport, (e, url) => explainFailure(e, url, pageOrigin()));
