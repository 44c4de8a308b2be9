import { RELATION_WORDS, type RelationWord } from '../kinship/relations';
import type { PuzzleRecord } from '../puzzle/puzzle';
import type { RenderedStory } from '../text/render';

/**
 * The dataset as JSON Lines, the shape evaluation harnesses read (`generate --format jsonl`): one
 * object a row with its id, k, task, story, question, answer and the answer choices. The story and
 * question are the CSV's text (names in CLUTRR's `[Name]` brackets); the answer is the CSV's target.
 */

/**
 * The answer choices: CLUTRR's 18 answer classes, the relation words without husband and wife (a
 * spouse is always a single story fact, never a target at k ≥ 2), in predicate order.
 */
export const CHOICE_WORDS: readonly RelationWord[] = RELATION_WORDS.filter((w) => w !== 'husband' && w !== 'wife');

/** Every relation word, for the rare row whose answer is outside the 18 (a spouse, at k = 1). */
const ALL_WORDS: readonly RelationWord[] = RELATION_WORDS;

/** One row of the JSONL file. */
export interface JsonlRow {
  readonly id: string;
  readonly k: number;
  /** The task number (1–7); with `k` it makes the task name `task.k`. */
  readonly task: number;
  readonly story: string;
  readonly question: string;
  readonly answer: string;
  readonly choices: readonly string[];
}

const CHOICES_JSON = JSON.stringify(CHOICE_WORDS);
const ALL_JSON = JSON.stringify(ALL_WORDS);

/** A row as its JsonlRow. */
export function jsonlRow(puzzle: PuzzleRecord, text: RenderedStory, id: string): JsonlRow {
  const answer = puzzle.target.word;
  return {
    id,
    k: puzzle.k,
    task: puzzle.task,
    story: text.story,
    question: text.question,
    answer,
    choices: (CHOICE_WORDS as readonly string[]).includes(answer) ? CHOICE_WORDS : ALL_WORDS,
  };
}

/**
 * A row as one line of JSON Lines, without its newline: the keys in JsonlRow's order. The same
 * text as JSON.stringify(jsonlRow(…)), with the fixed choices list written once, not per row.
 */
export function jsonlRecord(puzzle: PuzzleRecord, text: RenderedStory, id: string): string {
  const answer = puzzle.target.word;
  const choices = (CHOICE_WORDS as readonly string[]).includes(answer) ? CHOICES_JSON : ALL_JSON;
  return (
    `{"id":${JSON.stringify(id)},"k":${puzzle.k},"task":${puzzle.task},"story":${JSON.stringify(text.story)},` +
    `"question":${JSON.stringify(text.question)},"answer":${JSON.stringify(answer)},"choices":${choices}}`
  );
}

/** Whole JSON Lines text of rows: one line each, each ended by a newline. */
export function writeJsonl(rows: readonly JsonlRow[]): string {
  let out = '';
  for (const r of rows) out += JSON.stringify(r) + '\n';
  return out;
}

/** Reads JSON Lines text back into rows, checking each line's shape; errors name the line. */
export function parseJsonl(text: string): JsonlRow[] {
  const rows: JsonlRow[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (e) {
      throw new Error(`line ${i + 1}: not JSON (${(e as Error).message})`, { cause: e });
    }
    const o = v as Record<string, unknown>;
    const strings = ['id', 'story', 'question', 'answer'] as const;
    const bad =
      typeof v !== 'object' || v === null
        ? 'not an object'
        : (strings.find((key) => typeof o[key] !== 'string') ??
          (['k', 'task'] as const).find((key) => !Number.isInteger(o[key])) ??
          (!Array.isArray(o.choices) || !o.choices.every((c) => typeof c === 'string') ? 'choices' : undefined));
    if (bad)
      throw new Error(`line ${i + 1}: ${bad === 'not an object' ? bad : `"${bad}" is missing or of the wrong type`}`);
    rows.push(o as unknown as JsonlRow);
  }
  return rows;
}
