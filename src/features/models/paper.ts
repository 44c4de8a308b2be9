/**
 * The CLUTRR paper's robustness figures for all seven of its models (Sinha et al. 2019), copied
 * from /work/shared/reference/paper/clutrr-paper.md as printed: Table 2 (trained clean, tested on
 * each noise kind; trained and tested on the same noise kind) and the appendix's noise-trained
 * table for the other rows (Table 3 of the arXiv appendix, Table 1 of the separate appendix file;
 * its diagonal repeats Table 2's). Every figure is the mean ± standard error over 10 runs, on
 * test stories of k = 2 and 3.
 *
 * The k = 2..10 curves of the paper's Figure 5 are drawn only as a plot; the text states no
 * number for them ("near-perfectly on the held-out clauses of length k = 3" for the GAT), so the
 * report draws no Figure 5 curve.
 *
 * BERT and BERT-LSTM need pretrained weights (bert-base-uncased) that cannot be fetched here:
 * their columns are shown and marked as not shipped (`PAPER_NOT_SHIPPED`).
 */
import type { NoiseKind } from '../../ml/model';
import { PAPER_MODEL_NAME, PAPER_MODELS, type PaperModelId } from '../../ml/modelKinds';

export { PAPER_MODEL_NAME, PAPER_MODELS, type PaperModelId };

/** A figure of the paper: mean ± standard error. */
export interface PaperFigure {
  readonly mean: number;
  readonly se: number;
}

/** Paper models no model of ours reimplements, and why. */
export const PAPER_NOT_SHIPPED: Readonly<Partial<Record<PaperModelId, string>>> = {
  bert: 'needs pretrained BERT weights, which cannot be fetched here',
  bertLstm: 'needs pretrained BERT weights, which cannot be fetched here',
};

export interface PaperRobustnessRow {
  readonly train: NoiseKind;
  readonly test: NoiseKind;
  /** Each of the seven models' figure, by Table 2's column. */
  readonly figures: Readonly<Record<PaperModelId, PaperFigure>>;
  /** Where the paper states it. */
  readonly source: 'Table 2' | 'appendix';
}

/** `[mean, se]` pairs in Table 2's column order: BiLSTM-attention, BiLSTM-mean, RN, MAC, BERT, BERT-LSTM, GAT. */
type Printed = readonly [number, number][];

function row(train: NoiseKind, test: NoiseKind, source: PaperRobustnessRow['source'], printed: Printed) {
  if (printed.length !== PAPER_MODELS.length) throw new Error(`paper row ${train}/${test}: ${printed.length} figures`);
  const figures = Object.fromEntries(
    PAPER_MODELS.map((m, i) => [m, { mean: printed[i]![0], se: printed[i]![1] }]),
  ) as Record<PaperModelId, PaperFigure>;
  return { train, test, figures, source };
}

/** Train noise × test noise, all seven models, as the paper prints them (rows in its order). */
// prettier-ignore
export const PAPER_ROBUSTNESS: readonly PaperRobustnessRow[] = [
  // Table 2: trained clean.
  row('clean', 'clean', 'Table 2', [[0.58, 0.05], [0.53, 0.05], [0.49, 0.06], [0.63, 0.08], [0.37, 0.06], [0.67, 0.03], [1.0, 0.0]]),
  row('clean', 'supporting', 'Table 2', [[0.76, 0.02], [0.64, 0.22], [0.58, 0.06], [0.71, 0.07], [0.28, 0.1], [0.66, 0.06], [0.24, 0.2]]),
  row('clean', 'irrelevant', 'Table 2', [[0.7, 0.15], [0.76, 0.02], [0.59, 0.06], [0.69, 0.05], [0.24, 0.08], [0.55, 0.03], [0.51, 0.15]]),
  row('clean', 'disconnected', 'Table 2', [[0.49, 0.05], [0.45, 0.05], [0.5, 0.06], [0.59, 0.05], [0.24, 0.08], [0.5, 0.06], [0.8, 0.17]]),
  // Trained on supporting facts (appendix; the diagonal is Table 2's).
  row('supporting', 'clean', 'appendix', [[0.38, 0.04], [0.32, 0.04], [0.4, 0.09], [0.45, 0.03], [0.19, 0.06], [0.39, 0.06], [0.92, 0.17]]),
  row('supporting', 'supporting', 'Table 2', [[0.67, 0.06], [0.66, 0.07], [0.68, 0.05], [0.65, 0.04], [0.32, 0.09], [0.57, 0.04], [0.98, 0.01]]),
  row('supporting', 'irrelevant', 'appendix', [[0.44, 0.03], [0.39, 0.03], [0.51, 0.08], [0.46, 0.09], [0.2, 0.06], [0.36, 0.05], [0.5, 0.23]]),
  row('supporting', 'disconnected', 'appendix', [[0.31, 0.21], [0.25, 0.16], [0.47, 0.08], [0.41, 0.06], [0.2, 0.08], [0.32, 0.04], [0.92, 0.05]]),
  // Trained on irrelevant facts.
  row('irrelevant', 'clean', 'appendix', [[0.57, 0.05], [0.56, 0.05], [0.46, 0.13], [0.67, 0.05], [0.24, 0.06], [0.46, 0.08], [0.92, 0.0]]),
  row('irrelevant', 'supporting', 'appendix', [[0.38, 0.22], [0.31, 0.16], [0.61, 0.07], [0.61, 0.04], [0.27, 0.06], [0.46, 0.04], [0.77, 0.12]]),
  row('irrelevant', 'irrelevant', 'Table 2', [[0.51, 0.06], [0.52, 0.06], [0.5, 0.04], [0.56, 0.04], [0.25, 0.06], [0.53, 0.06], [0.93, 0.01]]),
  row('irrelevant', 'disconnected', 'appendix', [[0.44, 0.26], [0.54, 0.27], [0.55, 0.05], [0.61, 0.06], [0.26, 0.03], [0.45, 0.08], [0.85, 0.25]]),
  // Trained on disconnected facts.
  row('disconnected', 'clean', 'appendix', [[0.45, 0.02], [0.47, 0.03], [0.53, 0.09], [0.5, 0.06], [0.22, 0.09], [0.44, 0.05], [0.75, 0.07]]),
  row('disconnected', 'supporting', 'appendix', [[0.47, 0.03], [0.46, 0.05], [0.54, 0.03], [0.58, 0.06], [0.22, 0.06], [0.38, 0.08], [0.78, 0.12]]),
  row('disconnected', 'irrelevant', 'appendix', [[0.47, 0.05], [0.48, 0.03], [0.52, 0.04], [0.51, 0.05], [0.17, 0.04], [0.38, 0.05], [0.56, 0.26]]),
  row('disconnected', 'disconnected', 'Table 2', [[0.57, 0.07], [0.57, 0.06], [0.45, 0.11], [0.4, 0.1], [0.17, 0.05], [0.47, 0.06], [0.96, 0.01]]),
];

/** Trained and tested clean on k = 2, 3 (Table 2's first row): the only accuracy-by-k the paper states. */
export const PAPER_CLEAN_K23: Readonly<Record<PaperModelId, PaperFigure>> = PAPER_ROBUSTNESS[0]!.figures;
