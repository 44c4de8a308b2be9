import { RpcClient, type WorkerLike } from './rpc';
import type {
  CsvInput,
  FolderResult,
  TestResult,
  TrainBody,
  TrainChunk,
  TrainCommands,
  TrainResult,
} from './trainProtocol';

export type { CsvInput, FolderResult, TestResult, TrainBody, TrainChunk, TrainResult } from './trainProtocol';
export type { TrainBackend, TrainEpoch, TrainStart, TestScore } from './trainProtocol';
export type { EpochRecord } from '../ml/train/epochs';
export type { DataFile } from '../ml/train/csvFiles';

/**
 * The page's side of the train worker (tfjs and the trainers load with it, on the first
 * request): typed promises over `trainProtocol.ts`. `cancel()` asks a running training to stop
 * after its current step and keep what it learned; `reset()` stops the worker outright.
 */
export class TrainClient {
  private readonly rpc: RpcClient<TrainCommands>;

  constructor(spawn: () => WorkerLike) {
    this.rpc = new RpcClient<TrainCommands>(spawn, 'train worker');
  }

  train(
    body: TrainBody,
    on: { onProgress?: (done: number, total: number) => void; onChunk?: (chunk: TrainChunk) => void } = {},
  ): Promise<TrainResult> {
    return this.rpc.request('train', body, on).promise;
  }

  test(files: readonly CsvInput[]): Promise<TestResult> {
    return this.rpc.request('test', { files }).promise;
  }

  folder(): Promise<FolderResult> {
    return this.rpc.request('folder', {}).promise;
  }

  cancel(): Promise<{ readonly stopping: boolean }> {
    return this.rpc.request('cancel', {}).promise;
  }

  reset(): void {
    this.rpc.reset();
  }
}

let shared: TrainClient | null = null;

/** The app's one train worker client, made on first use. */
export function trainClient(): TrainClient {
  shared ??= new TrainClient(
    () => new Worker(new URL('./train.worker.ts', import.meta.url), { type: 'module', name: 'train' }),
  );
  return shared;
}
