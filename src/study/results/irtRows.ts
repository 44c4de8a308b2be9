/**
 * Item response theory over a study's result rows (`irt.ts` does the fitting): the solve rows
 * become a participants × items matrix, the fit comes back with each item's puzzle id, k, task
 * and mean difficulty rating, and respondents outside the study (the models) can be placed on
 * its ability scale. Used by `results irt` (CLI) and the results worker (dashboard).
 *
 * What counts: main trials of puzzle-solving studies (practice teaches, attention checks test
 * attention, and paraphrase or review trials of a collection study are not puzzles solved). A
 * timeout is a wrong answer, as in the figures. Participants are `participant_id`s; items are
 * puzzles as shown (`itemKey`: puzzle id, seed, k, task, strict). A participant who met an item
 * twice (two sessions) is scored on the first answer.
 */
import { CLAUSE_ID_PREFIX } from '../collect/clause';
import { itemKey } from './figures';
import {
  correlation,
  fitIrt,
  IrtError,
  scoreRespondent,
  type IrtData,
  type IrtFit,
  type IrtItem,
  type IrtModel,
  type ScoredRespondent,
} from './irt';
import type { ResultRow } from './results';

/** A review row's puzzle id is its story's `<session_id>/<trial_index>`. */
const STORY_ID = /^.+\/\d+$/;

/** A main trial of a puzzle-solving study (not practice, check, paraphrase or review). */
export function isSolveRow(row: ResultRow): boolean {
  if (row.phase !== 'main') return false;
  if (row.puzzle_id.startsWith(`${CLAUSE_ID_PREFIX}.`)) return false;
  const verdict = row.response === 'good' || row.response.startsWith('bad:');
  return !STORY_ID.test(row.puzzle_id) && !verdict;
}

/** An item as the fit reports it: the puzzle, its estimates, and people's ratings of it. */
export interface IrtItemRow extends IrtItem {
  /** `itemKey`, the fit's item id. */
  readonly id: string;
  readonly puzzle_id: string;
  readonly k: number;
  readonly task: number;
  /** Mean difficulty rating (1–5) of the people who rated it; null when nobody did. */
  readonly meanRating: number | null;
  readonly ratings: number;
}

export interface IrtReport extends Omit<IrtFit, 'items'> {
  readonly items: readonly IrtItemRow[];
  /** Pearson correlation of mean rating and IRT difficulty over the fitted items rated; null with fewer than 3. */
  readonly ratingCorrelation: { readonly r: number; readonly items: number } | null;
  /** Solve rows used. */
  readonly rows: number;
}

/** The matrix of `rows`' solve rows and what each item is. */
export function irtMatrix(rows: readonly ResultRow[]): {
  data: IrtData;
  items: readonly Omit<IrtItemRow, keyof IrtItem | 'id'>[];
  rows: number;
} {
  const solve = rows
    .filter(isSolveRow)
    .sort((a, b) =>
      a.session_id === b.session_id ? a.trial_index - b.trial_index : a.session_id < b.session_id ? -1 : 1,
    );
  const persons = [...new Set(solve.map((r) => r.participant_id))];
  const itemIndex = new Map<string, number>();
  const info: { puzzle_id: string; k: number; task: number; ratingSum: number; ratings: number }[] = [];
  for (const r of solve) {
    const key = itemKey(r);
    if (!itemIndex.has(key)) {
      itemIndex.set(key, info.length);
      info.push({ puzzle_id: r.puzzle_id, k: r.k, task: r.task, ratingSum: 0, ratings: 0 });
    }
  }
  // Items by k, then puzzle id: the order of the CSV and the charts.
  const order = [...itemIndex.entries()].sort(([, a], [, b]) => {
    const x = info[a]!;
    const y = info[b]!;
    return x.k - y.k || x.task - y.task || (x.puzzle_id < y.puzzle_id ? -1 : x.puzzle_id > y.puzzle_id ? 1 : 0);
  });
  const column = new Map(order.map(([key], j) => [key, j]));
  const personIndex = new Map(persons.map((p, i) => [p, i]));
  const J = order.length;
  const responses = new Int8Array(persons.length * J).fill(-1);
  for (const r of solve) {
    const j = column.get(itemKey(r))!;
    const cell = personIndex.get(r.participant_id)! * J + j;
    if (responses[cell] !== -1) continue;
    responses[cell] = r.correct ? 1 : 0;
    if (r.difficulty !== null) {
      const it = info[itemIndex.get(itemKey(r))!]!;
      it.ratingSum += r.difficulty;
      it.ratings++;
    }
  }
  return {
    data: { persons, items: order.map(([key]) => key), responses },
    items: order.map(([, i]) => {
      const it = info[i]!;
      return {
        puzzle_id: it.puzzle_id,
        k: it.k,
        task: it.task,
        meanRating: it.ratings > 0 ? it.ratingSum / it.ratings : null,
        ratings: it.ratings,
      };
    }),
    rows: solve.length,
  };
}

/**
 * Fits `model` to the solve rows of `rows` (throws IrtError, or a plain Error when there are no
 * solve rows, with a sentence for the researcher).
 */
export function irtReport(rows: readonly ResultRow[], model: IrtModel): IrtReport {
  const m = irtMatrix(rows);
  if (m.rows === 0) {
    throw new IrtError('no solve rows (main trials of a puzzle-solving study): nothing to fit');
  }
  const fit = fitIrt(m.data, { model });
  const items = fit.items.map((it, j): IrtItemRow => ({ ...it, ...m.items[j]! }));
  const rated = items.filter((i) => i.difficulty !== null && i.meanRating !== null);
  const r = correlation(
    rated.map((i) => i.meanRating!),
    rated.map((i) => i.difficulty!),
  );
  return {
    ...fit,
    items,
    ratingCorrelation: rated.length >= 3 && Number.isFinite(r) ? { r, items: rated.length } : null,
    rows: m.rows,
  };
}

/** A respondent placed on a report's scale, with the sentence the dashboard shows. */
export interface PlacedRespondent extends ScoredRespondent {
  readonly id: string;
  readonly label: string;
  readonly sentence: string;
}

/** 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st… */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/**
 * Places a respondent (a model) who answered some of the items (by item key) on the report's
 * ability scale: null when it answered none of the fitted items.
 */
export function placeRespondent(
  report: Pick<IrtReport, 'items' | 'persons' | 'abilitySd'>,
  id: string,
  label: string,
  answers: ReadonlyMap<string, boolean>,
): PlacedRespondent | null {
  const scored = scoreRespondent(report, answers);
  if (!scored) return null;
  const pct = Math.min(99, Math.max(1, Math.round(scored.percentile)));
  return {
    ...scored,
    id,
    label,
    sentence: `${label} answers like a person at the ${ordinal(pct)} percentile (ability ${scored.ability.toFixed(2)} ± ${scored.se.toFixed(2)}, ${scored.correct}/${scored.answered} right).`,
  };
}
