/**
 * Group commit: the requests that arrive while the event loop is busy are stored together in
 * one transaction, at the next turn of the loop. With `synchronous = FULL` each commit waits for
 * the disk to sync the WAL (about 5 ms here), and better-sqlite3 waits on the main thread, so one
 * commit per request would cap the server near 200 requests a second and make every request
 * queue behind the others' syncs. Each request still gets its own outcome, all or nothing (a
 * savepoint each), and every promise resolves only after the shared commit has returned:
 * nothing is acknowledged before it is durable.
 */
import type { IngestBody } from './schema';
import type { IngestOutcome, ResultStore } from './store';

interface Waiting {
  readonly body: IngestBody;
  readonly resolve: (outcome: IngestOutcome) => void;
  readonly reject: (error: unknown) => void;
}

export class GroupCommit {
  private queue: Waiting[] = [];
  private scheduled = false;
  constructor(
    private readonly store: ResultStore,
    private readonly maxBatch = 500,
  ) {}

  ingest(body: IngestBody): Promise<IngestOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ body, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private alone(w: Waiting): void {
    let outcome: IngestOutcome;
    try {
      outcome = this.store.ingestBatch([w.body])[0]!;
    } catch (e) {
      w.reject(e);
      return;
    }
    w.resolve(outcome);
  }

  private flush(): void {
    this.scheduled = false;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      let outcomes: IngestOutcome[];
      try {
        outcomes = this.store.ingestBatch(batch.map((w) => w.body));
      } catch (e) {
        if (batch.length === 1) batch[0]!.reject(e);
        // One request's failure (a full disk under its rows, an error of its own) rolled back
        // the shared transaction: each then commits alone, so the others are not failed with it.
        else for (const w of batch) this.alone(w);
        continue;
      }
      batch.forEach((w, i) => w.resolve(outcomes[i]!));
    }
  }
}
