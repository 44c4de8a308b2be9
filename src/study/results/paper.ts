/**
 * The paper's human study (Sinha et al. 2019, appendix Table 3): time-limited crowd workers'
 * accuracy and their difficulty ratings (mean ± sd, 1–5) per k. Copied from
 * /work/shared/reference/clutrr-kb.md; the paper gives no interval or trial counts, so these are
 * drawn as points without error bars.
 */
export interface PaperRow {
  readonly k: number;
  readonly accuracy: number;
  readonly difficulty: number;
  readonly difficultySd: number;
}

export const PAPER_TABLE3: readonly PaperRow[] = [
  { k: 2, accuracy: 0.848, difficulty: 1.49, difficultySd: 1.25 },
  { k: 3, accuracy: 0.773, difficulty: 2.41, difficultySd: 1.33 },
  { k: 4, accuracy: 0.477, difficulty: 3.81, difficultySd: 1.46 },
  { k: 5, accuracy: 0.424, difficulty: 3.78, difficultySd: 0.96 },
  { k: 6, accuracy: 0.406, difficulty: 4.46, difficultySd: 0.87 },
];
