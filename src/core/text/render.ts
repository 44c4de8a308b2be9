import type { PuzzleRecord } from '../puzzle/puzzle';
import type { Rng } from '../random/rng';
import { mapped } from '../util/mapped';

/** One sentence of a rendered story and the ids of the puzzle facts it states. */
export interface RenderedSentence {
  readonly text: string;
  readonly factIds: readonly number[];
}

/**
 * A story as text. Entities are written `[Name]`, as in CLUTRR's files, so that its loaders
 * read our datasets; the app strips the brackets for display.
 */
export interface RenderedStory {
  /** Every sentence, noise included, in the order the story tells them. */
  readonly sentences: readonly RenderedSentence[];
  readonly story: string;
  /** The path facts only, in path order. */
  readonly cleanStory: string;
  /** "How is [B] related to [A]?" */
  readonly question: string;
  /** One sentence stating the answer, e.g. "[Anne]'s daughter is [Kelly]." */
  readonly textTarget: string;
}

export type Split = 'train' | 'test';

/** Turns a puzzle into text; datasets call it once per row with the row's split. */
export type StoryRenderer = (puzzle: PuzzleRecord, split: Split, rng: Rng) => RenderedStory;

/** Joins sentences into a story with single spaces. */
export function joinSentences(sentences: readonly { readonly text: string }[]): string {
  return mapped(sentences, (s) => s.text).join(' ');
}

/** "[Name]" — the bracket convention of CLUTRR's text columns. */
export const bracket = (name: string): string => `[${name}]`;

/** Removes CLUTRR's brackets around names for display. */
export const unbracket = (text: string): string => text.replace(/\[([^\]]+)\]/g, '$1');
