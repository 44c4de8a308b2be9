/**
 * What `npm run train` asks of each model kind: train and hand back the saved artifacts. The
 * trainers and the epoch loop live in src/ml/train (the browser's Train panel runs the same
 * code); this adds the script's own options. main.ts does everything else the same way for
 * every kind: it loads the artifacts back with src/ml/load.ts and evaluates *that* model, so the
 * accuracies in metadata.json are the shipped weights' own.
 */
import type { PresetName } from '../../src/core/puzzle/datasetOptions';
import type { NoiseKind } from '../../src/ml/model';
import type { TrainSettings } from '../../src/ml/train/context';

export type {
  EpochRecord,
  ResumeFrom,
  Step,
  Trained,
  TrainContext,
  Trainer,
  TrainSettings,
} from '../../src/ml/train/context';
export { runEpochs } from '../../src/ml/train/epochs';

export interface TrainOptions extends TrainSettings {
  readonly noise: NoiseKind;
  /** See data.ts DataOptions. */
  readonly preset: PresetName | 'none';
  readonly labels?: 'clutrr';
  /** `--bank wide`: see data.ts DataOptions. */
  readonly bank?: 'wide';
  readonly trainRows: number;
  readonly testRows: number;
  readonly version: string;
  readonly backend: string;
}
