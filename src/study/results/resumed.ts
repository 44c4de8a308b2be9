/**
 * Resumed trials (interrupted and shown again) have times spread over two sittings, so the
 * researcher chooses whether the figures include them (the default, figures as before), include
 * and mark them, or leave them out; only main and check trials count, as practice is in no figure.
 */
import type { ResultRow } from './results';

export type ResumedMode = 'include' | 'mark' | 'omit';

export const RESUMED_MODES: readonly ResumedMode[] = ['include', 'mark', 'omit'];

export const RESUMED_MODE_LABEL: Record<ResumedMode, string> = {
  include: 'Include',
  mark: 'Include and mark',
  omit: 'Leave out',
};

export const isResumedMode = (v: string): v is ResumedMode => (RESUMED_MODES as readonly string[]).includes(v);

/** The rows that were not resumed, in their order. */
export function withoutResumed<T extends Pick<ResultRow, 'resumed'>>(rows: readonly T[]): T[] {
  return rows.filter((r) => !r.resumed);
}

/** Resumed trials and all trials a figure could hold: main and check, practice never. */
export interface ResumedTally {
  readonly resumed: number;
  readonly trials: number;
}

/**
 * The tally of the items shown with every answer in (`items()` holds each main and check trial of
 * the participants in the figures once), so it follows "leave out flagged" as the figures do.
 */
export function resumedTally(items: readonly { readonly n: number; readonly resumed: number }[]): ResumedTally {
  let resumed = 0;
  let trials = 0;
  for (const it of items) {
    resumed += it.resumed;
    trials += it.n;
  }
  return { resumed, trials };
}

const trialsText = (n: number) => `${n.toLocaleString('en-US')} resumed trial${n === 1 ? '' : 's'}`;

/** What the figures did with the resumed trials, in words (shown next to them). */
export function resumedNote(mode: ResumedMode, { resumed, trials }: ResumedTally): string {
  const of = `(of ${trials.toLocaleString('en-US')} main and check trials)`;
  if (resumed === 0) return `No resumed trials ${of}: every figure is the same whichever you choose.`;
  const what = `${trialsText(resumed)} ${of}`;
  switch (mode) {
    case 'include':
      return `${what} included in every figure, unmarked.`;
    case 'mark':
      return `${what} included and marked: the Resumed columns and the response-time chart say how many each figure holds.`;
    case 'omit':
      return `${what} left out of every figure (accuracy, response time, difficulty, items, participants); the flags still count them.`;
  }
}
