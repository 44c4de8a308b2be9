/**
 * How much reviewers agree, and how varied the stories of one clause are: the collection
 * dashboard's figures beside the paper's Table 1 (within-clause Jaccard 0.201 for unigrams,
 * 0.0385 for bigrams) and its 79% of stories passed with every reviewer agreeing.
 */
import { groupStats } from '../../core/text/stats';

/** The paper's Table 1: mean pairwise Jaccard word overlap within a clause. */
export const PAPER_JACCARD = { unigram: 0.201, bigram: 0.0385 } as const;

export interface FleissKappa {
  /** (P̄ − P̄e) / (1 − P̄e); null with no item of two or more ratings, or when P̄e = 1 (one category used). */
  readonly kappa: number | null;
  /** P̄: the mean over items of the share of rater pairs that agree. */
  readonly observed: number;
  /** P̄e: the agreement expected by chance, Σ p_j² over the categories' shares. */
  readonly expected: number;
  /** Items counted (those with two or more ratings). */
  readonly items: number;
}

/**
 * Fleiss' kappa of `ratings`, one row per item, one count per category (how many raters put
 * the item there). Items with fewer than two ratings are left out. Rows may have different
 * totals (a story with two reviews beside one with three): each item's agreement is over its
 * own rater pairs, P_i = Σ n_ij (n_ij − 1) / (n_i (n_i − 1)), and the categories' shares pool
 * every rating; with equal totals this is Fleiss' (1971) statistic. Throws a RangeError naming
 * the item for a count that is not a whole number ≥ 0 or a row of another length.
 */
export function fleissKappa(ratings: readonly (readonly number[])[]): FleissKappa {
  const width = ratings[0]?.length ?? 0;
  ratings.forEach((row, i) => {
    if (row.length !== width) {
      throw new RangeError(`item ${i + 1} has ${row.length} categories, the first item ${width}`);
    }
    const bad = row.find((n) => !Number.isInteger(n) || n < 0);
    if (bad !== undefined) throw new RangeError(`item ${i + 1} has a count of ${bad} (a whole number ≥ 0 is needed)`);
  });
  const rated = ratings.filter((row) => row.reduce((a, b) => a + b, 0) >= 2);
  if (rated.length === 0) return { kappa: null, observed: 0, expected: 0, items: 0 };
  let observed = 0;
  let total = 0;
  const byCategory = new Array<number>(width).fill(0);
  for (const row of rated) {
    const n = row.reduce((a, b) => a + b, 0);
    observed += row.reduce((s, nij) => s + nij * (nij - 1), 0) / (n * (n - 1));
    total += n;
    row.forEach((nij, j) => (byCategory[j]! += nij));
  }
  observed /= rated.length;
  const expected = byCategory.reduce((s, c) => s + (c / total) ** 2, 0);
  const kappa = expected === 1 ? null : (observed - expected) / (1 - expected);
  return { kappa, observed, expected, items: rated.length };
}

export interface ClauseOverlap {
  /** Mean over clauses (with two or more stories) of the mean pairwise unigram Jaccard overlap. */
  readonly unigram: number;
  readonly bigram: number;
  /** Clauses with two or more stories: the ones averaged. */
  readonly clauses: number;
  readonly stories: number;
}

/**
 * Within-clause word overlap, as the paper's Table 1 computes it: for each clause, the mean
 * Jaccard overlap of the word sets (and bigram sets) of every pair of its stories; then the mean
 * over clauses. Words as `templateWords` reads them (placeholders deleted, lower case, letters
 * only), so pass templates or stories with the names taken out.
 */
export function withinClauseJaccard(
  storiesByClause: ReadonlyMap<string, readonly string[]> | Readonly<Record<string, readonly string[]>>,
): ClauseOverlap {
  const groups = storiesByClause instanceof Map ? [...storiesByClause.values()] : Object.values(storiesByClause);
  const s = groupStats(groups as readonly (readonly string[])[]);
  return { unigram: s.jaccard1, bigram: s.jaccard2, clauses: s.keysWithPairs, stories: s.paraphrases };
}
