/**
 * The CLUTRR paper's figures for the two models we reimplemented (Sinha et al. 2019), copied
 * from /work/shared/reference/paper/clutrr-paper.md. Only numbers the paper states: Table 2
 * (trained clean, tested on each noise kind; trained and tested on the same noise kind) and the
 * appendix's noise-trained table (trained on supporting, irrelevant or disconnected, tested on
 * every kind: Table 3 of the arXiv appendix, Table 1 of the separate appendix file). Every
 * figure is the mean ± standard error over 10 runs, on test stories of k = 2 and 3.
 *
 * The k = 2..10 curves of the paper's Figure 5 are drawn only as a plot; the text states no
 * number for them ("near-perfectly on the held-out clauses of length k = 3" for the GAT), so the
 * report draws no Figure 5 curve.
 */
import type { NoiseKind } from '../../ml/model';

/** A figure of the paper: mean ± standard error. */
export interface PaperFigure {
  readonly mean: number;
  readonly se: number;
}

/** The paper's two columns we compare with: GAT (structured) and BiLSTM with attention (text). */
export type PaperModel = 'gat' | 'bilstmAttention';

export const PAPER_MODEL_LABEL: Readonly<Record<PaperModel, string>> = {
  gat: 'GAT',
  bilstmAttention: 'BiLSTM-attention',
};

export interface PaperRobustnessRow {
  readonly train: NoiseKind;
  readonly test: NoiseKind;
  readonly gat: PaperFigure;
  readonly bilstmAttention: PaperFigure;
  /** Where the paper states it. */
  readonly source: 'Table 2' | 'appendix';
}

const f = (mean: number, se: number): PaperFigure => ({ mean, se });

/** Train noise × test noise, GAT and BiLSTM-attention, as the paper prints them. */
export const PAPER_ROBUSTNESS: readonly PaperRobustnessRow[] = [
  { train: 'clean', test: 'clean', gat: f(1.0, 0.0), bilstmAttention: f(0.58, 0.05), source: 'Table 2' },
  { train: 'clean', test: 'supporting', gat: f(0.24, 0.2), bilstmAttention: f(0.76, 0.02), source: 'Table 2' },
  { train: 'clean', test: 'irrelevant', gat: f(0.51, 0.15), bilstmAttention: f(0.7, 0.15), source: 'Table 2' },
  { train: 'clean', test: 'disconnected', gat: f(0.8, 0.17), bilstmAttention: f(0.49, 0.05), source: 'Table 2' },
  { train: 'supporting', test: 'clean', gat: f(0.92, 0.17), bilstmAttention: f(0.38, 0.04), source: 'appendix' },
  { train: 'supporting', test: 'supporting', gat: f(0.98, 0.01), bilstmAttention: f(0.67, 0.06), source: 'Table 2' },
  { train: 'supporting', test: 'irrelevant', gat: f(0.5, 0.23), bilstmAttention: f(0.44, 0.03), source: 'appendix' },
  {
    train: 'supporting',
    test: 'disconnected',
    gat: f(0.92, 0.05),
    bilstmAttention: f(0.31, 0.21),
    source: 'appendix',
  },
  { train: 'irrelevant', test: 'clean', gat: f(0.92, 0.0), bilstmAttention: f(0.57, 0.05), source: 'appendix' },
  { train: 'irrelevant', test: 'supporting', gat: f(0.77, 0.12), bilstmAttention: f(0.38, 0.22), source: 'appendix' },
  { train: 'irrelevant', test: 'irrelevant', gat: f(0.93, 0.01), bilstmAttention: f(0.51, 0.06), source: 'Table 2' },
  {
    train: 'irrelevant',
    test: 'disconnected',
    gat: f(0.85, 0.25),
    bilstmAttention: f(0.44, 0.26),
    source: 'appendix',
  },
  { train: 'disconnected', test: 'clean', gat: f(0.75, 0.07), bilstmAttention: f(0.45, 0.02), source: 'appendix' },
  {
    train: 'disconnected',
    test: 'supporting',
    gat: f(0.78, 0.12),
    bilstmAttention: f(0.47, 0.03),
    source: 'appendix',
  },
  {
    train: 'disconnected',
    test: 'irrelevant',
    gat: f(0.56, 0.26),
    bilstmAttention: f(0.47, 0.05),
    source: 'appendix',
  },
  {
    train: 'disconnected',
    test: 'disconnected',
    gat: f(0.96, 0.01),
    bilstmAttention: f(0.57, 0.07),
    source: 'Table 2',
  },
];

/** Trained and tested clean on k = 2, 3 (Table 2's first row): the only accuracy-by-k the paper states. */
export const PAPER_CLEAN_K23: Readonly<Record<PaperModel, PaperFigure>> = {
  gat: PAPER_ROBUSTNESS[0]!.gat,
  bilstmAttention: PAPER_ROBUSTNESS[0]!.bilstmAttention,
};
