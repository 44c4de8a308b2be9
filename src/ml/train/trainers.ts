/**
 * TRAINERS: every model id the training script and the browser's Train panel can train, to its
 * trainer. Every id also needs a descriptor in src/ml/modelKinds.ts (the callers refuse one
 * without).
 */
import type { Trainer } from './context';
import { GAT_MODELS, trainGat } from './gat';
import { LSTM_MODELS, MAC_MODELS, RN_MODELS, trainLstm, trainMac, trainRn } from './text';

export const TRAINERS: Readonly<Record<string, Trainer>> = {
  ...Object.fromEntries(Object.keys(GAT_MODELS).map((m) => [m, trainGat])),
  ...Object.fromEntries(Object.keys(LSTM_MODELS).map((m) => [m, trainLstm])),
  ...Object.fromEntries(Object.keys(RN_MODELS).map((m) => [m, trainRn])),
  ...Object.fromEntries(Object.keys(MAC_MODELS).map((m) => [m, trainMac])),
};

/** The model ids TRAINERS knows, in its order. */
export const TRAINABLE_MODELS: readonly string[] = Object.keys(TRAINERS);
