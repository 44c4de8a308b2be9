/**
 * metadata.json of a model trained on CLUTRR CSV files: the descriptor's facts, the settings,
 * what it was trained on (file names, rows, digests, the validation slice's size; never the
 * rows), its history and its test figures. Shared by the training script and the browser's
 * Train panel, so the two write the same folder.
 */
import { CLASSES } from '../encoding';
import type { ModelMetadata } from '../model';
import { modelFacts } from '../modelKinds';
import type { Example } from '../testData';
import type { Trained, TrainSettings } from './context';
import { type DataFile, filesNoise, taskList } from './csvFiles';

export interface FilesRun {
  readonly settings: TrainSettings;
  readonly version: string;
  /** The command or tool that made the folder (metadata.json `madeBy`). */
  readonly madeBy: string;
  /** The tfjs backend it trained on. */
  readonly backend: string;
  readonly labels: 'family' | 'clutrr';
  readonly train: readonly Example[];
  readonly trainFiles: readonly DataFile[];
  readonly validationRows: number;
  readonly testFiles: readonly DataFile[];
  /** Test accuracy by k ("2", "3", …) of the test files. */
  readonly accuracy: Readonly<Record<string, number>>;
  /** More `training` facts (the script's resume and time cap). */
  readonly extra?: Record<string, unknown>;
}

/** The `training` section of a files-trained folder. */
export function filesTraining(run: FilesRun, trained: Trained): ModelMetadata['training'] {
  const { settings } = run;
  return {
    source: 'files',
    noise: filesNoise(run.train),
    preset: 'none',
    labels: run.labels,
    files: run.trainFiles,
    validationRows: run.validationRows,
    tasks: taskList(run.train),
    rows: run.train.length,
    epochs: trained.training.history.length,
    batchSize: settings.batchSize,
    learningRate: settings.learningRate,
    backend: run.backend,
    seconds: 0,
    ...(settings.maxSeconds !== undefined ? { maxSeconds: settings.maxSeconds } : {}),
    ...run.extra,
    ...trained.training,
  };
}

/** The whole metadata.json of a files-trained folder. */
export function filesMetadata(run: FilesRun, trained: Trained): ModelMetadata {
  const { settings } = run;
  return {
    model: settings.model,
    kind: trained.kind,
    ...modelFacts(settings.model),
    version: run.version,
    seed: settings.seed,
    madeBy: run.madeBy,
    classes: CLASSES,
    encoding: trained.encoding,
    config: trained.config,
    training: filesTraining(run, trained),
    test: {
      files: run.testFiles,
      rows: run.testFiles.reduce((n, f) => n + f.used, 0),
      labels: run.labels,
      accuracy: run.accuracy,
    },
    robustness: [],
  };
}
