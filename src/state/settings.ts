import { DEFAULT_FAMILY, type FamilyParams } from '../core/family/family';
import { isTaskId, type TaskId } from '../core/puzzle/tasks';
import { MAX_SEED_LENGTH } from '../core/puzzle/datasetOptions';
import { STORY_ORDERS, type StoryOrder } from '../core/text/order';
import type { ExplorerText } from '../worker/protocol';

/** Everything that determines a puzzle and its text; the URL holds it, so a link reproduces it. */
export interface Settings {
  readonly seed: string;
  readonly k: number;
  readonly task: TaskId;
  readonly family: FamilyParams;
  readonly text: ExplorerText;
  /** Strict mode (sound rules only); absent or false is CLUTRR's rule base. */
  readonly strict?: boolean;
}

// One range of k everywhere: core's.
import { K_MAX, K_MIN } from '../core/puzzle/tasks';
export { K_MAX, K_MIN };
export const DEFAULT_K = 2;
export const DEFAULT_TASK: TaskId = 1;
/** Paraphrases, one fact per sentence: natural text whose sentences map one-to-one onto facts. */
export const DEFAULT_TEXT: ExplorerText = {
  synthetic: false,
  combinationLength: 1,
  templateSplit: false,
  half: 'train',
  storyOrder: 'shuffled',
};

/**
 * The explorer's one "Templates" choice, a view of the text settings: the whole bank, one half
 * of the template split, or plain sentences. The URL's `text` parameter holds it.
 */
export const TEMPLATE_MODES = ['paraphrase', 'train', 'test', 'synthetic'] as const;
export type TemplateMode = (typeof TEMPLATE_MODES)[number];

export function textMode(t: Pick<ExplorerText, 'synthetic' | 'templateSplit' | 'half'>): TemplateMode {
  if (t.synthetic) return 'synthetic';
  return t.templateSplit ? t.half : 'paraphrase';
}

/** The text settings for a Templates choice, keeping the facts per paraphrase. */
export function withMode<T extends ExplorerText>(t: T, mode: TemplateMode): T {
  return {
    ...t,
    synthetic: mode === 'synthetic',
    templateSplit: mode === 'train' || mode === 'test',
    half: mode === 'test' ? 'test' : 'train',
  };
}

/** URL parameter names; the family ones are spelled as the CLI's flags. */
const P = {
  seed: 'seed',
  k: 'k',
  task: 'task',
  maxLevels: 'max-levels',
  minChild: 'min-child',
  maxChild: 'max-child',
  pMarry: 'p-marry',
  mode: 'text',
  combinationLength: 'combination-length',
  storyOrder: 'story-order',
  strict: 'strict',
} as const;

/** The name links made before it was spelled as the CLI's flag; still read. */
const OLD_COMBINATION_LENGTH = 'comb';

/** A seed for a first visit without one: the clock, not Math.random, and short enough to read. */
export function freshSeed(now: number = Date.now()): string {
  return String(now % 100000);
}

/** The seed `nextSeed` came from, or null (`0`, or a seed New puzzle never gives). */
export function previousSeed(seed: string): string | null {
  if (/^\d+$/.test(seed) && Number(seed) < Number.MAX_SAFE_INTEGER)
    return Number(seed) > 0 ? String(Number(seed) - 1) : null;
  const m = /^(.*)-(\d+)$/.exec(seed);
  if (!m || Number(m[2]) >= Number.MAX_SAFE_INTEGER) return null;
  const n = Number(m[2]);
  if (n > 1) return `${m[1]}-${n - 1}`;
  // `abc-1` came from `abc`, unless `abc` is a number New puzzle would have counted up.
  return n === 1 && !(/^\d+$/.test(m[1]!) && Number(m[1]) < Number.MAX_SAFE_INTEGER) ? m[1]! : null;
}

/** The seed after `seed`: numbers count up; `abc` becomes `abc-1`, `abc-1` becomes `abc-2`. */
export function nextSeed(seed: string): string {
  // Digits count up only while a number holds them exactly; a longer run of digits is text, so
  // the seed as typed stays whole (99999999999999999999 → 99999999999999999999-1).
  if (/^\d+$/.test(seed) && Number(seed) < Number.MAX_SAFE_INTEGER) return String(Number(seed) + 1);
  const m = /^(.*)-(\d+)$/.exec(seed);
  if (m && Number(m[2]) < Number.MAX_SAFE_INTEGER) return `${m[1]}-${Number(m[2]) + 1}`;
  return `${seed}-1`;
}

export interface ParsedSettings {
  readonly settings: Settings;
  /** Parameters that were present but unusable, in words, for the alert region. */
  readonly warnings: readonly string[];
}

/** Reads settings from a query string (`?seed=7&k=3&task=2`); bad values fall back to defaults. */
export function settingsFromSearch(search: string, fallbackSeed: () => string = freshSeed): ParsedSettings {
  const q = new URLSearchParams(search);
  const warnings: string[] = [];
  const int = (name: string, def: number, lo: number, hi: number): number => {
    const raw = q.get(name);
    if (raw === null || raw === '') return def;
    const v = Number(raw);
    if (Number.isInteger(v) && v >= lo && v <= hi) return v;
    warnings.push(`URL parameter ${name}=${raw} ignored: expected a whole number from ${lo} to ${hi}`);
    return def;
  };
  const seedRaw = q.get(P.seed)?.trim() ?? '';
  let seed = seedRaw !== '' ? seedRaw : fallbackSeed();
  // Links carry the seed: a very long one makes URLs that servers refuse (HTTP 431).
  if (seed.length > MAX_SEED_LENGTH) {
    warnings.push(
      `URL parameter seed ignored: it is ${seed.length} characters long; seeds have at most ${MAX_SEED_LENGTH}`,
    );
    seed = fallbackSeed();
  }
  const k = int(P.k, DEFAULT_K, K_MIN, K_MAX);
  const taskNo = int(P.task, DEFAULT_TASK, 1, 7);
  const task: TaskId = isTaskId(taskNo) ? taskNo : DEFAULT_TASK;
  const maxLevels = int(P.maxLevels, DEFAULT_FAMILY.maxLevels, 1, 6);
  const minChild = int(P.minChild, DEFAULT_FAMILY.minChild, 0, 8);
  const maxChild = int(P.maxChild, DEFAULT_FAMILY.maxChild, 0, 8);
  let pMarry = DEFAULT_FAMILY.pMarry;
  const pRaw = q.get(P.pMarry);
  if (pRaw !== null && pRaw !== '') {
    const v = Number(pRaw);
    if (v >= 0 && v <= 1) pMarry = v;
    else warnings.push(`URL parameter ${P.pMarry}=${pRaw} ignored: expected a number from 0 to 1`);
  }
  let mode: TemplateMode = textMode(DEFAULT_TEXT);
  const modeRaw = q.get(P.mode);
  if (modeRaw !== null && modeRaw !== '') {
    if ((TEMPLATE_MODES as readonly string[]).includes(modeRaw)) mode = modeRaw as TemplateMode;
    else warnings.push(`URL parameter ${P.mode}=${modeRaw} ignored: expected ${TEMPLATE_MODES.join(', ')}`);
  }
  const combinationLength = int(
    q.has(P.combinationLength) ? P.combinationLength : OLD_COMBINATION_LENGTH,
    DEFAULT_TEXT.combinationLength,
    1,
    3,
  ) as ExplorerText['combinationLength'];
  let storyOrder = DEFAULT_TEXT.storyOrder;
  const orderRaw = q.get(P.storyOrder);
  if (orderRaw !== null && orderRaw !== '') {
    if ((STORY_ORDERS as readonly string[]).includes(orderRaw)) storyOrder = orderRaw as StoryOrder;
    else warnings.push(`URL parameter ${P.storyOrder}=${orderRaw} ignored: expected ${STORY_ORDERS.join(' or ')}`);
  }
  let strict = false;
  const strictRaw = q.get(P.strict);
  if (strictRaw !== null && strictRaw !== '') {
    if (strictRaw === '1' || strictRaw === '0') strict = strictRaw === '1';
    else warnings.push(`URL parameter ${P.strict}=${strictRaw} ignored: expected 1 or 0`);
  }
  return {
    settings: {
      seed,
      k,
      task,
      family: { maxLevels, minChild, maxChild, pMarry },
      text: withMode({ ...DEFAULT_TEXT, combinationLength, storyOrder }, mode),
      // Only when on, so settings read from an old link equal the ones that made it.
      ...(strict ? { strict: true } : {}),
    },
    warnings,
  };
}

/** The query string for settings: seed, k and task always, the rest only when not the default. */
export function searchFromSettings(s: Settings): string {
  const q = new URLSearchParams();
  q.set(P.seed, s.seed);
  q.set(P.k, String(s.k));
  q.set(P.task, String(s.task));
  const f = s.family;
  if (f.maxLevels !== DEFAULT_FAMILY.maxLevels) q.set(P.maxLevels, String(f.maxLevels));
  if (f.minChild !== DEFAULT_FAMILY.minChild) q.set(P.minChild, String(f.minChild));
  if (f.maxChild !== DEFAULT_FAMILY.maxChild) q.set(P.maxChild, String(f.maxChild));
  if (f.pMarry !== DEFAULT_FAMILY.pMarry) q.set(P.pMarry, String(f.pMarry));
  const mode = textMode(s.text);
  if (mode !== textMode(DEFAULT_TEXT)) q.set(P.mode, mode);
  if (s.text.combinationLength !== DEFAULT_TEXT.combinationLength) {
    q.set(P.combinationLength, String(s.text.combinationLength));
  }
  if (s.text.storyOrder !== DEFAULT_TEXT.storyOrder) q.set(P.storyOrder, s.text.storyOrder);
  if (s.strict) q.set(P.strict, '1');
  return `?${q}`;
}

export function sameSettings(a: Settings, b: Settings): boolean {
  return searchFromSettings(a) === searchFromSettings(b);
}
