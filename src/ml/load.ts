/**
 * `loadModel`: any shipped model folder's model.json + weights.bin, whatever its kind, as a
 * ClutrrModel (model.ts). The one entry point of the CLI's `eval`, the reproduction test and the
 * models worker.
 */
import { GAT_FORMAT, type GatModelJson, gatAsModel, loadGat } from './gat';
import { LSTM_FORMAT, type LstmModelJson, loadLstm, lstmAsModel } from './lstm';
import { loadMac, MAC_FORMAT, type MacModelJson, macAsModel } from './mac';
import type { ClutrrModel } from './model';
import { loadRn, RN_FORMAT, type RnModelJson, rnAsModel } from './rn';

/** Reads model.json's `format` and builds that model; a clear error for anything else. */
export function loadModel(modelJson: unknown, weights: ArrayBuffer, name?: string): ClutrrModel {
  const json = modelJson as { format?: unknown; name?: unknown } | null;
  const format = typeof json === 'object' && json !== null ? json.format : undefined;
  const label = name ?? (typeof json?.name === 'string' ? json.name : String(format));
  if (format === GAT_FORMAT) return gatAsModel(loadGat(modelJson as GatModelJson, weights), label);
  if (format === LSTM_FORMAT) return lstmAsModel(loadLstm(modelJson as LstmModelJson, weights), label);
  if (format === RN_FORMAT) return rnAsModel(loadRn(modelJson as RnModelJson, weights), label);
  if (format === MAC_FORMAT) return macAsModel(loadMac(modelJson as MacModelJson, weights), label);
  const known = [GAT_FORMAT, LSTM_FORMAT, RN_FORMAT, MAC_FORMAT];
  throw new Error(`model.json: unknown model format ${JSON.stringify(format)} (expected one of ${known.join(', ')})`);
}
