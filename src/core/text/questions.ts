import type { PuzzleRecord } from '../puzzle/puzzle';
import type { Rng } from '../random/rng';
import { bracket } from './render';

/**
 * Question and answer sentences. A question asks how the second query entity is related to the
 * first ("How is [Kelly] related to [Anne]?"); the answer sentence (CLUTRR's text_target) states
 * the target relation in one of a few shapes ("[Anne]'s daughter is [Kelly].").
 */

type Form = (a: string, b: string, word: string) => string;

const article = (word: string): string => (/^[aeiou]/.test(word) ? 'an' : 'a');

/** Ways to ask for the relation of b to a. The first is the plain renderer's form. */
export const QUESTION_FORMS: readonly Form[] = [
  (a, b) => `How is ${b} related to ${a}?`,
  (a, b) => `What is ${b} to ${a}?`,
  (a, b) => `Who is ${b} to ${a}?`,
  (a, b) => `What relation is ${b} to ${a}?`,
  (a, b) => `In the family, what is ${b} to ${a}?`,
  (a, b) => `What is the relationship of ${b} to ${a}?`,
];

/** Ways to state "b is a's word" in one sentence. */
export const TARGET_FORMS: readonly Form[] = [
  (a, b, w) => `${a}'s ${w} is ${b}.`,
  (a, b, w) => `${b} is ${a}'s ${w}.`,
  (a, b, w) => `${b} is the ${w} of ${a}.`,
  (a, b, w) => `The ${w} of ${a} is ${b}.`,
  (a, b, w) => `${a} has ${article(w)} ${w} named ${b}.`,
];

function queryNames(puzzle: PuzzleRecord): [string, string] {
  const a = puzzle.entities[puzzle.query[0]]!.name;
  const b = puzzle.entities[puzzle.query[1]]!.name;
  return [bracket(a), bracket(b)];
}

/** The question in form `form` (an index into QUESTION_FORMS, taken modulo its length). */
export function questionText(puzzle: PuzzleRecord, form = 0): string {
  const [a, b] = queryNames(puzzle);
  return QUESTION_FORMS[form % QUESTION_FORMS.length]!(a, b, puzzle.target.word);
}

/** The answer sentence in form `form` (an index into TARGET_FORMS, taken modulo its length). */
export function targetText(puzzle: PuzzleRecord, form = 0): string {
  const [a, b] = queryNames(puzzle);
  return TARGET_FORMS[form % TARGET_FORMS.length]!(a, b, puzzle.target.word);
}

/** A question in a form drawn from `rng`. */
export const randomQuestion = (puzzle: PuzzleRecord, rng: Rng): string =>
  questionText(puzzle, rng.int(QUESTION_FORMS.length));

/** An answer sentence in a form drawn from `rng`. */
export const randomTargetText = (puzzle: PuzzleRecord, rng: Rng): string =>
  targetText(puzzle, rng.int(TARGET_FORMS.length));
