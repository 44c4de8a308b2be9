/**
 * The model report's figures, pure: which shipped folders are the main models, accuracy by k from
 * the worker's `evaluate` chunks, the training metadata's own k curve, the chart's series, and
 * the robustness table (train noise × test noise) from every folder's metadata beside the
 * paper's figures.
 */
import type { ModelIndex, ModelIndexEntry, ModelMetadata, NoiseKind } from '../../ml/model';
import { PAPER_CLEAN_K23, PAPER_MODEL_LABEL, PAPER_ROBUSTNESS, type PaperFigure, type PaperModel } from './paper';

/** The k axis of the report (the paper's Figure 5: trained on 2, 3, tested on 2..10). */
export const REPORT_KS: readonly number[] = [2, 3, 4, 5, 6, 7, 8, 9, 10];

/** The noise kinds in the paper's order (tasks 1..4). */
export const NOISE_KINDS: readonly NoiseKind[] = ['clean', 'supporting', 'irrelevant', 'disconnected'];

export const NOISE_LABEL: Readonly<Record<NoiseKind, string>> = {
  clean: 'Clean',
  supporting: 'Supporting',
  irrelevant: 'Irrelevant',
  disconnected: 'Disconnected',
};

/** Main versions have no `-` suffix (`1`); noise-trained variants are `1-<noise>`. */
export const isMainVersion = (version: string): boolean => !version.includes('-');

/** The main shipped models, one per model name (the first main version listed), in index order. */
export function mainModels(index: ModelIndex): ModelIndexEntry[] {
  const seen = new Set<string>();
  const out: ModelIndexEntry[] = [];
  for (const e of index.models) {
    if (!isMainVersion(e.version) || seen.has(e.model)) continue;
    seen.add(e.model);
    out.push(e);
  }
  return out;
}

/** One k's count from the worker (`evaluate`'s chunk). */
export interface KCount {
  readonly k: number;
  readonly rows: number;
  readonly correct: number;
}

export const accuracyOf = (c: Pick<KCount, 'rows' | 'correct'>): number => (c.rows > 0 ? c.correct / c.rows : NaN);

/** Adds a chunk to a model's counts, replacing an earlier count of the same k; sorted by k. */
export function withCount(counts: readonly KCount[], chunk: KCount): KCount[] {
  return [...counts.filter((c) => c.k !== chunk.k), chunk].sort((a, b) => a.k - b.k);
}

/** The training metadata's own curve (`test.accuracy`, keys "2".."10"), sorted by k; bad keys left out. */
export function metadataCurve(meta: Pick<ModelMetadata, 'test'>): { k: number; accuracy: number }[] {
  return Object.entries(meta.test?.accuracy ?? {})
    .map(([k, accuracy]) => ({ k: Number(k), accuracy }))
    .filter((p) => Number.isInteger(p.k) && Number.isFinite(p.accuracy))
    .sort((a, b) => a.k - b.k);
}

/** Mean accuracy over the counts whose k lies in [from, to] (pooled: correct / rows). */
export function pooledAccuracy(counts: readonly KCount[], from: number, to: number): number {
  const inRange = counts.filter((c) => c.k >= from && c.k <= to);
  return accuracyOf({
    rows: inRange.reduce((s, c) => s + c.rows, 0),
    correct: inRange.reduce((s, c) => s + c.correct, 0),
  });
}

/** Colour slots (models.css `.mr-slot-<n>`): four for our models, then the paper's two. */
export const MODEL_SLOTS = 4;
const PAPER_SLOT: Readonly<Record<PaperModel, number>> = { gat: 5, bilstmAttention: 4 };

/** A line of the chart. */
export interface ChartSeries {
  readonly key: string;
  readonly label: string;
  /** `browser`: run here now; `training`: metadata.test.accuracy; `paper`: the paper's stated figure. */
  readonly source: 'browser' | 'training' | 'paper';
  /** Its colour slot: models cycle through 0..MODEL_SLOTS-1; the paper's GAT and BiLSTM have their own. */
  readonly slot: number;
  readonly points: readonly {
    readonly k: number;
    readonly value: number;
    readonly lo?: number;
    readonly hi?: number;
  }[];
}

/**
 * The chart's lines: per model the browser run (solid) and the training curve (dashed), then
 * the paper's Table 2 clean figures as short segments over k = 2..3 with their ± standard error
 * (its test sets mixed k = 2 and 3; it states no figure beyond).
 */
export function chartSeries(
  models: readonly ModelIndexEntry[],
  runs: ReadonlyMap<string, readonly KCount[]>,
  metadata: ReadonlyMap<string, Pick<ModelMetadata, 'test'>>,
): ChartSeries[] {
  const out: ChartSeries[] = [];
  models.forEach((m, i) => {
    const slot = i % MODEL_SLOTS;
    const run = runs.get(m.id) ?? [];
    const points = run.filter((c) => c.rows > 0).map((c) => ({ k: c.k, value: accuracyOf(c) }));
    if (points.length)
      out.push({ key: `run:${m.id}`, label: `${m.label} (this browser)`, source: 'browser', slot, points });
    const meta = metadata.get(m.id);
    const curve = meta ? metadataCurve(meta) : [];
    if (curve.length)
      out.push({
        key: `training:${m.id}`,
        label: `${m.label} (training script)`,
        source: 'training',
        slot,
        points: curve.map((p) => ({ k: p.k, value: p.accuracy })),
      });
  });
  (['gat', 'bilstmAttention'] as const).forEach((pm) => {
    const fig = PAPER_CLEAN_K23[pm];
    const band = { value: fig.mean, lo: Math.max(0, fig.mean - fig.se), hi: Math.min(1, fig.mean + fig.se) };
    out.push({
      key: `paper:${pm}`,
      label: `Paper ${PAPER_MODEL_LABEL[pm]} (Table 2, k = 2, 3)`,
      source: 'paper',
      slot: PAPER_SLOT[pm],
      points: [
        { k: 2, ...band },
        { k: 3, ...band },
      ],
    });
  });
  return out;
}

/** One of our cells in the robustness table. */
export interface RobustnessCell {
  /** The folder it comes from, e.g. `gat-improved/1-supporting`. */
  readonly id: string;
  readonly accuracy: number;
  readonly rows: number;
}

export interface RobustnessRow {
  readonly train: NoiseKind;
  readonly test: NoiseKind;
  /** By model name (`gat`, `gat-improved`, `lstm`); absent when no folder of that model was trained on `train`. */
  readonly cells: Readonly<Record<string, RobustnessCell>>;
  readonly paper: Readonly<Record<PaperModel, PaperFigure>> | null;
  readonly paperSource: 'Table 2' | 'appendix' | null;
}

export interface RobustnessTable {
  /** Model names in index order, with their label (the main folder's, else the first one's). */
  readonly columns: readonly { readonly model: string; readonly label: string }[];
  readonly rows: readonly RobustnessRow[];
}

/**
 * Train × test noise from every folder's metadata: a folder trained on `training.noise` gives one
 * cell per robustness row (its test kind). When two folders of one model were trained on the
 * same noise, the main version (no suffix) wins, else the first in index order. Rows follow the
 * paper's order; every train × test pair is listed (the paper states all sixteen).
 */
export function robustnessTable(
  index: ModelIndex,
  metadata: ReadonlyMap<string, Pick<ModelMetadata, 'training' | 'robustness' | 'label'>>,
): RobustnessTable {
  const columns: { model: string; label: string }[] = [];
  const cells = new Map<string, RobustnessCell>();
  const entries = [...index.models].sort((a, b) => Number(isMainVersion(b.version)) - Number(isMainVersion(a.version)));
  for (const e of entries) {
    const meta = metadata.get(e.id);
    if (!meta) continue;
    if (!columns.some((c) => c.model === e.model)) columns.push({ model: e.model, label: e.label });
    const train = meta.training?.noise;
    if (!NOISE_KINDS.includes(train)) continue;
    for (const r of meta.robustness ?? []) {
      const key = `${e.model}|${train}|${r.test}`;
      if (!cells.has(key) && NOISE_KINDS.includes(r.test))
        cells.set(key, { id: e.id, accuracy: r.accuracy, rows: r.rows });
    }
  }
  const order = new Map(index.models.map((e, i) => [e.model, i]));
  columns.sort((a, b) => (order.get(a.model) ?? 0) - (order.get(b.model) ?? 0));
  const rows: RobustnessRow[] = [];
  for (const train of NOISE_KINDS)
    for (const test of NOISE_KINDS) {
      const p = PAPER_ROBUSTNESS.find((r) => r.train === train && r.test === test);
      const own: Record<string, RobustnessCell> = {};
      for (const c of columns) {
        const cell = cells.get(`${c.model}|${train}|${test}`);
        if (cell) own[c.model] = cell;
      }
      rows.push({
        train,
        test,
        cells: own,
        paper: p ? { gat: p.gat, bilstmAttention: p.bilstmAttention } : null,
        paperSource: p?.source ?? null,
      });
    }
  return { columns, rows };
}

/** The ids whose metadata the report reads: every folder (main and noise-trained). */
export const metadataIds = (index: ModelIndex): string[] => index.models.map((e) => e.id);

/** Run progress over all models: rows done of rows planned. */
export function runProgress(
  plan: readonly string[],
  done: ReadonlyMap<string, number>,
  rowsPerModel: number,
): { done: number; total: number } {
  const total = plan.length * rowsPerModel;
  const sum = plan.reduce((s, id) => s + Math.min(rowsPerModel, done.get(id) ?? 0), 0);
  return { done: sum, total };
}

/** `0.873`, or a dash when there is no figure. */
export const formatAccuracy = (v: number | undefined): string =>
  v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(3);

/** A figure of the paper as printed: `0.58 ± 0.05`. */
export const formatPaper = (p: PaperFigure): string => `${p.mean.toFixed(2)} ± ${p.se.toFixed(2)}`;
