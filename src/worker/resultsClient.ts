import type { IrtBody, IrtResult, ReadResultsBody, ReadResultsResult, ResultsWorkerCommands } from './resultsProtocol';
import { RpcClient, type WorkerLike } from './rpc';

/**
 * The dashboard's side of the results worker: `read` sends every file the dashboard holds (Blobs
 * are handles; their bytes are not copied on the page) and the view, and resolves with a line
 * per file, the merged rows (when the page does not have them yet) and the figures. A newer `read` supersedes an older one (its promise rejects with
 * CancelledError). A worker that crashes (e.g. out of memory) rejects with a WorkerError named
 * `WorkerCrash`; the next read starts a fresh worker, which reads every listed file again.
 */
export class ResultsFilesClient {
  private readonly client: RpcClient<ResultsWorkerCommands>;
  private current: number | null = null;

  constructor(
    spawn: () => WorkerLike = () =>
      new Worker(new URL('./results.worker.ts', import.meta.url), { type: 'module', name: 'results' }),
  ) {
    this.client = new RpcClient<ResultsWorkerCommands>(spawn, 'results file reader');
  }

  read(body: ReadResultsBody, onProgress?: (done: number, total: number) => void): Promise<ReadResultsResult> {
    if (this.current !== null) this.client.cancel(this.current);
    const { id, promise } = this.client.request('read', body, { onProgress });
    this.current = id;
    return promise;
  }

  /**
   * Item response theory over the rows of the merge `body.key` (the last read's): a newer `irt`
   * supersedes an older one. Answers `stale` when the worker holds another merge (a read came
   * between), or a crashed worker's fresh successor holds none yet.
   */
  irt(body: IrtBody): Promise<IrtResult> {
    return this.client.latest('irt', 'irt', body);
  }
}
