/**
 * `loadModel`: any shipped model folder's model.json + weights.bin, whatever its kind, as a
 * ClutrrModel (model.ts). The one entry point of the CLI's `eval`, the reproduction test and the
 * models worker.
 */
import { GAT_FORMAT, type GatModelJson, gatAsModel, loadGat } from './graph/graphNet';
import type { ClutrrModel, ModelKind } from './model';
import { LSTM_FORMAT, type LstmModelJson, loadLstm, lstmAsModel } from './text/lstm';
import { loadMac, MAC_FORMAT, type MacModelJson, macAsModel } from './text/mac';
import { loadRn, RN_FORMAT, type RnModelJson, rnAsModel } from './text/rn';

/** A model.json `format`: one per format family, so a new ModelKind cannot go without a loader. */
export type Format = `clutrr-lab/${ModelKind}`;

type Loader = (modelJson: unknown, weights: ArrayBuffer, label: string) => ClutrrModel;

/** How each format's model.json and weights.bin become a ClutrrModel named `label`. */
const FORMATS = {
  [GAT_FORMAT]: (json, weights, label) => gatAsModel(loadGat(json as GatModelJson, weights), label),
  [LSTM_FORMAT]: (json, weights, label) => lstmAsModel(loadLstm(json as LstmModelJson, weights), label),
  [RN_FORMAT]: (json, weights, label) => rnAsModel(loadRn(json as RnModelJson, weights), label),
  [MAC_FORMAT]: (json, weights, label) => macAsModel(loadMac(json as MacModelJson, weights), label),
} satisfies Record<Format, Loader>;

const isFormat = (format: unknown): format is Format => typeof format === 'string' && Object.hasOwn(FORMATS, format);

/** Reads model.json's `format` and builds that model; a clear error for anything else. */
export function loadModel(modelJson: unknown, weights: ArrayBuffer, name?: string): ClutrrModel {
  const json = modelJson as { format?: unknown; name?: unknown } | null;
  const format = typeof json === 'object' && json !== null ? json.format : undefined;
  const label = name ?? (typeof json?.name === 'string' ? json.name : String(format));
  if (isFormat(format)) return FORMATS[format](modelJson, weights, label);
  const known = Object.keys(FORMATS);
  throw new Error(`model.json: unknown model format ${JSON.stringify(format)} (expected one of ${known.join(', ')})`);
}
