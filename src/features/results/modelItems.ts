/**
 * The models on the very items people answered, pure parts: which items a results
 * file holds, how each is rebuilt as a model question, and accuracy by k of people and models
 * side by side.
 *
 * A result row records the puzzle's `seed`, `k`, `task` and `strict` (the generator's request
 * without its text settings), the query names, the gold word and the story as shown (names
 * without CLUTRR's brackets). The puzzle is regenerated from those (`generatePuzzle` does not
 * read the text settings); the story is regenerated with each of a study's text settings
 * (`studyText`: template split `train`, `test` or `all`) and used when, unbracketed, it is the
 * row's story word for word. When none is (a file from a changed bank, say), the row's own story
 * is bracketed by the puzzle's names: the models read what the person read either way. An item
 * whose regenerated puzzle does not ask about the row's people or has another answer cannot be
 * the item the person saw: it is left out and named.
 */
import type { PuzzleRecord } from '../../core/puzzle/puzzle';
import type { LlmItem, LlmItemResult } from '../../llm/run';
import { unbracket, type RenderedStory } from '../../core/text/render';
import { classIndex, CLASSES, questionFromPuzzle } from '../../ml/encoding';
import { bestClass, type ModelQuestion } from '../../ml/model';
import type { AnsweredItem } from '../../study/results/figures';
import type { StudyDefinition } from '../../study/definition/definition';
import { studyText, type StudyStoryRequest } from '../../study/schedule/trialContent';

/** A study's possible text settings, the default (`all`) first. */
export const STUDY_TEXT_SPLITS: readonly StudyDefinition['templateSplit'][] = ['all', 'train', 'test'];

/** The generator worker's `story` request that rebuilds an item under one template split. */
export function storyRequestFor(item: AnsweredItem, split: StudyDefinition['templateSplit']): StudyStoryRequest {
  return {
    seed: String(item.seed),
    k: item.k,
    task: item.task,
    strict: item.strict,
    text: studyText({ templateSplit: split }),
  };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Writes each of `names` as `[Name]` wherever it stands as a whole word (longest names first,
 * so `Anna` inside `Annabel` stays); text already in brackets is left alone.
 */
export function bracketNames(text: string, names: readonly string[]): string {
  const list = [...new Set(names.filter((n) => n.trim() !== ''))].sort((a, b) => b.length - a.length);
  if (list.length === 0) return text;
  const pattern = new RegExp(
    `\\[[^\\]]*\\]|(?<![\\p{L}\\p{N}])(${list.map(escapeRegExp).join('|')})(?![\\p{L}\\p{N}])`,
    'gu',
  );
  return text.replace(pattern, (whole: string, name: string | undefined) => (name ? `[${name}]` : whole));
}

/** An item as a model question, or why it cannot be the item the person saw. */
export type RebuiltItem =
  | {
      readonly ok: true;
      readonly question: ModelQuestion;
      /** `regenerated`: the generator's story, word for word the row's; `bracketed`: the row's story with the names marked. */
      readonly story: 'regenerated' | 'bracketed';
    }
  | { readonly ok: false; readonly reason: string };

/**
 * Checks the regenerated puzzle against the row (the query people and the answer) and picks the
 * story: the first regenerated one that reads as the row's, else the row's story bracketed.
 */
export function rebuildItem(item: AnsweredItem, puzzle: PuzzleRecord, stories: readonly RenderedStory[]): RebuiltItem {
  const a = puzzle.entities[puzzle.query[0]]?.name;
  const b = puzzle.entities[puzzle.query[1]]?.name;
  if (a !== item.query_a || b !== item.query_b || puzzle.target.word !== item.gold) {
    return {
      ok: false,
      reason:
        `seed ${item.seed} (k = ${item.k}, task ${item.task}${item.strict ? ', strict' : ''}) makes a puzzle about ` +
        `${a ?? '?'} and ${b ?? '?'} (answer ${puzzle.target.word}); the file says ${item.query_a} and ` +
        `${item.query_b} (answer ${item.gold})`,
    };
  }
  const same = stories.find((s) => unbracket(s.story) === item.story);
  if (same) return { ok: true, question: questionFromPuzzle(puzzle, same.story), story: 'regenerated' };
  const names = puzzle.entities.map((e) => e.name);
  return { ok: true, question: questionFromPuzzle(puzzle, bracketNames(item.story, names)), story: 'bracketed' };
}

/** A model's answer to an item: its most probable class and whether that is the gold word. */
export interface ModelItemAnswer {
  readonly word: string;
  readonly probability: number;
  readonly correct: boolean;
}

export function modelItemAnswer(probs: Float32Array, gold: string): ModelItemAnswer {
  const best = bestClass(probs);
  return { word: CLASSES[best] ?? '?', probability: probs[best] ?? NaN, correct: best === classIndex(gold) };
}

/** One k of the comparison: people over their answers, each model over the items. */
export interface ComparisonRow {
  readonly k: number;
  readonly items: number;
  readonly people: { readonly answers: number; readonly correct: number; readonly accuracy: number };
  /** People on the items some model answered (the fair comparison when some items were not rebuilt). */
  readonly peopleAsked: {
    readonly items: number;
    readonly answers: number;
    readonly correct: number;
    readonly accuracy: number;
  };
  /** By model id; `items` counts the items the model answered (rebuilt ones). */
  readonly models: Readonly<
    Record<string, { readonly items: number; readonly correct: number; readonly accuracy: number }>
  >;
}

const ratio = (c: number, n: number) => (n > 0 ? c / n : NaN);

/**
 * Accuracy by k: people's over all their answers (as the figures count them) and over the items
 * the models answered, each model's over the items it answered (one answer per item), plus an
 * `all` row (k = 0) over every k.
 */
export function compareByK(
  items: readonly AnsweredItem[],
  answers: ReadonlyMap<string, ReadonlyMap<string, ModelItemAnswer>>,
): ComparisonRow[] {
  const ks = [...new Set(items.map((i) => i.k))].sort((a, b) => a - b);
  const rowFor = (k: number, group: readonly AnsweredItem[]): ComparisonRow => {
    const answersN = group.reduce((s, i) => s + i.answers, 0);
    const correctN = group.reduce((s, i) => s + i.correct, 0);
    const asked = group.filter((i) => [...answers.values()].some((m) => m.has(i.key)));
    const askedAnswers = asked.reduce((s, i) => s + i.answers, 0);
    const askedCorrect = asked.reduce((s, i) => s + i.correct, 0);
    const models: Record<string, { items: number; correct: number; accuracy: number }> = {};
    for (const [id, byItem] of answers) {
      const mine = group.flatMap((i) => {
        const a = byItem.get(i.key);
        return a ? [a] : [];
      });
      const c = mine.filter((a) => a.correct).length;
      models[id] = { items: mine.length, correct: c, accuracy: ratio(c, mine.length) };
    }
    return {
      k,
      items: group.length,
      people: { answers: answersN, correct: correctN, accuracy: ratio(correctN, answersN) },
      peopleAsked: {
        items: asked.length,
        answers: askedAnswers,
        correct: askedCorrect,
        accuracy: ratio(askedCorrect, askedAnswers),
      },
      models,
    };
  };
  const rows = ks.map((k) =>
    rowFor(
      k,
      items.filter((i) => i.k === k),
    ),
  );
  if (ks.length > 1) rows.push(rowFor(0, items));
  return rows;
}

/** The column id of the language model in the comparison (beside the shipped models' ids). */
export const LLM_COLUMN = 'llm';

/** An item as the language model is asked it: the story as the person read it, their query, the gold word. */
export function llmItemOf(item: AnsweredItem): LlmItem {
  return { id: item.key, story: item.story, a: item.query_a, b: item.query_b, gold: item.gold };
}

/** A language model's record as a comparison answer: its word (or `unparseable`, `no reply`), right or wrong. */
export function llmItemAnswer(r: LlmItemResult): ModelItemAnswer {
  return {
    word: r.answer ?? (r.outcome === 'unparseable' ? 'unparseable' : 'no reply'),
    probability: NaN,
    correct: r.correct,
  };
}
