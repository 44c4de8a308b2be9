/**
 * The model report's figures, pure: which shipped folders are the main models, accuracy by k from
 * the worker's `evaluate` chunks, the training metadata's own k curve, the chart's series, and
 * the robustness table (train noise × test noise) from every folder's metadata beside the
 * paper's figures.
 */
import type { ModelIndex, ModelIndexEntry, ModelMetadata, NoiseKind } from '../../ml/model';
import { modelKind } from '../../ml/modelKinds';
import {
  PAPER_CLEAN_K23,
  PAPER_MODEL_NAME,
  PAPER_MODELS,
  PAPER_NOT_SHIPPED,
  PAPER_ROBUSTNESS,
  type PaperFigure,
  type PaperModelId,
} from './paper';

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

/**
 * Pairs of shown models where one is the other's ablation (modelKinds.ts `ablationOf`): the same
 * network trained without the extra supervision, to be shown side by side.
 */
export function ablationPairs(
  models: readonly ModelIndexEntry[],
): { full: ModelIndexEntry; ablation: ModelIndexEntry }[] {
  return models.flatMap((ablation) => {
    const of = modelKind(ablation.model)?.ablationOf;
    const full = of ? models.find((m) => m.model === of) : undefined;
    return full ? [{ full, ablation }] : [];
  });
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

/** Colour slots (models.css `.model-report__slot-<n>`); a paper model's figure takes the colour of our model that reimplements it. */
export const MODEL_SLOTS = 8;

/** The paper models the given models reimplement, in Table 2's order, each with the first such model's index. */
export function reimplemented(
  models: readonly Pick<ModelIndexEntry, 'paperModel'>[],
): { paper: PaperModelId; at: number }[] {
  return PAPER_MODELS.flatMap((paper) => {
    const at = models.findIndex((m) => m.paperModel === paper);
    return at >= 0 ? [{ paper, at }] : [];
  });
}

/** A line of the chart. */
/** The chart legend's groups, in the order shown. */
export const SERIES_GROUPS = ['paper', 'ours', 'ablations'] as const;
export type SeriesGroup = (typeof SERIES_GROUPS)[number];
export const SERIES_GROUP_LABEL = {
  paper: 'Paper (Table 2)',
  ours: 'Ours',
  ablations: 'Ablations',
} as const satisfies Record<SeriesGroup, string>;

/** A model's group: an ablation when its kind is one (modelKinds.ts `ablationOf`), else ours. */
export function modelGroup(m: Pick<ModelIndexEntry, 'model'>): SeriesGroup {
  return modelKind(m.model)?.ablationOf ? 'ablations' : 'ours';
}

export interface ChartSeries {
  readonly key: string;
  readonly label: string;
  /** `browser`: run here now; `training`: metadata.test.accuracy; `paper`: the paper's stated figure. */
  readonly source: 'browser' | 'training' | 'paper';
  /** Its colour slot: models cycle through 0..MODEL_SLOTS-1; a paper figure has its model's. */
  readonly slot: number;
  /** Its legend group: the paper's figures, our models, or an ablation of one of ours. */
  readonly group: SeriesGroup;
  readonly points: readonly {
    readonly k: number;
    readonly value: number;
    readonly lo?: number;
    readonly hi?: number;
  }[];
}

/**
 * The chart's lines: per model the browser run (solid) and the training curve (dashed), then
 * the paper's Table 2 clean figure of each paper model one of them reimplements, as a short
 * segment over k = 2..3 with its ± standard error (its test sets mixed k = 2 and 3; it states no
 * figure beyond), in the colour of our model.
 */
export function chartSeries(
  models: readonly ModelIndexEntry[],
  runs: ReadonlyMap<string, readonly KCount[]>,
  metadata: ReadonlyMap<string, Pick<ModelMetadata, 'test'>>,
): ChartSeries[] {
  const out: ChartSeries[] = [];
  models.forEach((m, i) => {
    const slot = i % MODEL_SLOTS;
    const group = modelGroup(m);
    const run = runs.get(m.id) ?? [];
    const points = run.filter((c) => c.rows > 0).map((c) => ({ k: c.k, value: accuracyOf(c) }));
    if (points.length)
      out.push({ key: `run:${m.id}`, label: `${m.label} (this browser)`, source: 'browser', slot, group, points });
    const meta = metadata.get(m.id);
    const curve = meta ? metadataCurve(meta) : [];
    if (curve.length)
      out.push({
        key: `training:${m.id}`,
        label: `${m.label} (training script)`,
        source: 'training',
        slot,
        group,
        points: curve.map((p) => ({ k: p.k, value: p.accuracy })),
      });
  });
  reimplemented(models).forEach(({ paper: pm, at }) => {
    const fig = PAPER_CLEAN_K23[pm];
    const band = { value: fig.mean, lo: Math.max(0, fig.mean - fig.se), hi: Math.min(1, fig.mean + fig.se) };
    out.push({
      key: `paper:${pm}`,
      label: `Paper ${PAPER_MODEL_NAME[pm]} (Table 2, k = 2, 3)`,
      source: 'paper',
      slot: at % MODEL_SLOTS,
      group: 'paper',
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
  /** The folder it comes from, e.g. `gat/1-supporting`. */
  readonly id: string;
  readonly accuracy: number;
  readonly rows: number;
}

/** The data-testid word of each paper column (`models-rob-paper-<word>-<train>-<test>`). */
export const PAPER_TESTID: Readonly<Record<PaperModelId, string>> = {
  bilstmAttention: 'bilstm',
  bilstmMean: 'bilstm-mean',
  rn: 'rn',
  mac: 'mac',
  bert: 'bert',
  bertLstm: 'bert-lstm',
  gat: 'gat',
};

/** A column of the robustness table: a model of ours (one per model and labels) or a paper model. */
export type RobustnessColumn =
  | {
      readonly source: 'ours';
      /** `<model>`, or `<model>-clutrr-labels` for folders trained on CLUTRR's labels: its testid word. */
      readonly key: string;
      readonly model: string;
      readonly label: string;
      readonly labels: 'family' | 'clutrr';
      readonly paperModel: PaperModelId | null;
    }
  | {
      readonly source: 'paper';
      readonly key: string;
      readonly paperModel: PaperModelId;
      readonly label: string;
      /** Why no model of ours stands for it (BERT), if so. */
      readonly notShipped: string | null;
    };

export interface RobustnessRow {
  readonly train: NoiseKind;
  readonly test: NoiseKind;
  /** By our column's key; absent when no folder of that column was trained on `train`. */
  readonly cells: Readonly<Record<string, RobustnessCell>>;
  /** The paper's seven figures, or null where it states none. */
  readonly paper: Readonly<Record<PaperModelId, PaperFigure>> | null;
  readonly paperSource: 'Table 2' | 'appendix' | null;
}

export interface RobustnessTable {
  /** Ours in index order, each paper model beside the last of ours that reimplements it; the rest of the paper's at the end. */
  readonly columns: readonly RobustnessColumn[];
  readonly rows: readonly RobustnessRow[];
}

type RobustnessMeta = Pick<ModelMetadata, 'training' | 'robustness'>;

/** Our column of a folder: its model, split by the labels it was trained on. */
function oursKey(e: Pick<ModelIndexEntry, 'model'>, labels: 'family' | 'clutrr'): string {
  return labels === 'clutrr' ? `${e.model}-clutrr-labels` : e.model;
}

/**
 * Train × test noise from every folder's metadata: a folder trained on `training.noise` gives one
 * cell per robustness row (its test kind), in the column of its model (a separate one for CLUTRR's
 * labels). When two folders of one column were trained on the same noise, the main version (no
 * suffix) wins, else the first in index order. Rows follow the paper's order; every train × test
 * pair is listed (the paper states all sixteen), with all seven of the paper's figures.
 */
export function robustnessTable(index: ModelIndex, metadata: ReadonlyMap<string, RobustnessMeta>): RobustnessTable {
  const ours: Extract<RobustnessColumn, { source: 'ours' }>[] = [];
  const cells = new Map<string, RobustnessCell>();
  const entries = [...index.models].sort((a, b) => Number(isMainVersion(b.version)) - Number(isMainVersion(a.version)));
  for (const e of entries) {
    const meta = metadata.get(e.id);
    if (!meta) continue;
    const labels = meta.training?.labels === 'clutrr' ? 'clutrr' : 'family';
    const key = oursKey(e, labels);
    if (!ours.some((c) => c.key === key)) {
      const label = labels === 'clutrr' ? `${e.label}, CLUTRR's labels` : e.label;
      ours.push({ source: 'ours', key, model: e.model, label, labels, paperModel: e.paperModel ?? null });
    }
    const train = meta.training?.noise;
    if (!NOISE_KINDS.includes(train)) continue;
    for (const r of meta.robustness ?? []) {
      const at = `${key}|${train}|${r.test}`;
      if (!cells.has(at) && NOISE_KINDS.includes(r.test))
        cells.set(at, { id: e.id, accuracy: r.accuracy, rows: r.rows });
    }
  }
  const order = new Map(index.models.map((e, i) => [e.model, i]));
  ours.sort(
    (a, b) =>
      (order.get(a.model) ?? 0) - (order.get(b.model) ?? 0) ||
      Number(a.labels === 'clutrr') - Number(b.labels === 'clutrr'),
  );
  const paperColumn = (paperModel: PaperModelId): RobustnessColumn => ({
    source: 'paper',
    key: PAPER_TESTID[paperModel],
    paperModel,
    label: `Paper: ${PAPER_MODEL_NAME[paperModel]}`,
    notShipped: PAPER_NOT_SHIPPED[paperModel] ?? null,
  });
  const columns: RobustnessColumn[] = [];
  ours.forEach((c, i) => {
    columns.push(c);
    if (c.paperModel && ours[i + 1]?.paperModel !== c.paperModel) columns.push(paperColumn(c.paperModel));
  });
  for (const pm of PAPER_MODELS) if (!columns.some((c) => c.paperModel === pm)) columns.push(paperColumn(pm));
  const rows: RobustnessRow[] = [];
  for (const train of NOISE_KINDS)
    for (const test of NOISE_KINDS) {
      const p = PAPER_ROBUSTNESS.find((r) => r.train === train && r.test === test);
      const own: Record<string, RobustnessCell> = {};
      for (const c of ours) {
        const cell = cells.get(`${c.key}|${train}|${test}`);
        if (cell) own[c.key] = cell;
      }
      rows.push({ train, test, cells: own, paper: p?.figures ?? null, paperSource: p?.source ?? null });
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
