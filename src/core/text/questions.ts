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

/**
 * The puzzle's sentence in form `form` of `forms` (taken modulo its length). `names`, when
 * given, are the entities' names already bracketed (a renderer has them), else bracketed here.
 */
function formText(forms: readonly Form[], puzzle: PuzzleRecord, form: number, names?: readonly string[]): string {
  const [qa, qb] = puzzle.query;
  const a = names ? names[qa]! : bracket(puzzle.entities[qa]!.name);
  const b = names ? names[qb]! : bracket(puzzle.entities[qb]!.name);
  return forms[form % forms.length]!(a, b, puzzle.target.word);
}

/** The question in form `form` (an index into QUESTION_FORMS, taken modulo its length). */
export function questionText(puzzle: PuzzleRecord, form = 0, names?: readonly string[]): string {
  return formText(QUESTION_FORMS, puzzle, form, names);
}

/** The answer sentence in form `form` (an index into TARGET_FORMS, taken modulo its length). */
export function targetText(puzzle: PuzzleRecord, form = 0, names?: readonly string[]): string {
  return formText(TARGET_FORMS, puzzle, form, names);
}

/** A question in a form drawn from `rng` (`names`: see formText). */
export const randomQuestion = (puzzle: PuzzleRecord, rng: Rng, names?: readonly string[]): string =>
  questionText(puzzle, rng.int(QUESTION_FORMS.length), names);

/** An answer sentence in a form drawn from `rng` (`names`: see formText). */
export const randomTargetText = (puzzle: PuzzleRecord, rng: Rng, names?: readonly string[]): string =>
  targetText(puzzle, rng.int(TARGET_FORMS.length), names);
