import type { TemplateSource } from '../core/text/datasetText';
import {
  describeFileProblems,
  readTemplateFiles as readFiles,
  type TemplateFileReading,
  type TemplateFileText,
  usableSource,
} from '../core/text/templateFile';
import { bankSize } from '../core/text/templates';
import { RpcClient } from './rpc';
import type { TemplateCommands } from './templates.worker';

/**
 * Template files picked in the app, read by core's template-file module (as the CLI's
 * `--templates` is) but leniently: the valid part of a file is used, and every part that was
 * skipped is listed. Big files are read in a worker (`TemplateReader`) so that the page stays
 * responsive; this module turns the worker's reading into what the picker and the stores keep.
 */

/** A picked file and its text. */
export type PickedFile = TemplateFileText;

export interface TemplateReading {
  /** What the renderer uses; null when no file gave a single valid template. */
  readonly source: TemplateSource | null;
  readonly name: string;
  /** f_comb keys and templates of the (merged) bank. */
  readonly keys: number;
  readonly paraphrases: number;
  /** Whether the files are a train/test pair, used as the template split. */
  readonly halves: boolean;
  /** One line per problem: `x.json: key "sonn": "sonn" is not a relation word`. */
  readonly problems: readonly string[];
}

/** What the picker and the stores keep of core's lenient reading. */
export function toTemplateReading(reading: TemplateFileReading): TemplateReading {
  return {
    source: usableSource(reading),
    name: reading.name,
    keys: Object.keys(reading.bank).length,
    paraphrases: bankSize(reading.bank),
    halves: reading.halves !== undefined,
    problems: describeFileProblems(reading.problems),
  };
}

/** Reads files whose text is already at hand, on this thread (tests, small fixtures). */
export function readTemplateFiles(files: readonly PickedFile[]): TemplateReading {
  return toTemplateReading(readFiles(files));
}

/**
 * Reads picked files in a worker of its own, one reading at a time: a new `read` (or `cancel`)
 * terminates the worker, the only way to stop a parse that is running, and the older promise
 * rejects with CancelledError.
 */
export class TemplateReader {
  private readonly client = new RpcClient<TemplateCommands>(
    () => new Worker(new URL('./templates.worker.ts', import.meta.url), { type: 'module' }),
    'template file reader',
  );
  private current: number | null = null;

  /** `onProgress` gets the share done, from 0 to 1. */
  async read(files: readonly File[], onProgress?: (fraction: number) => void): Promise<TemplateReading> {
    this.cancel();
    const { id, promise } = this.client.request(
      'read',
      { files },
      { onProgress: onProgress && ((done, total) => onProgress(total > 0 ? done / total : 1)) },
    );
    this.current = id;
    return toTemplateReading(await promise);
  }

  /** Stops a reading under way (the worker is stopped only when it is busy). */
  cancel(): void {
    if (this.current !== null && this.client.has(this.current)) this.client.reset();
  }

  /** Stops the worker for good, e.g. when the picker goes away. */
  dispose(): void {
    this.client.reset();
  }
}

/** The first `limit` problems and how many more there are. */
export function firstProblems(problems: readonly string[], limit = 10): { shown: readonly string[]; more: number } {
  return { shown: problems.slice(0, limit), more: Math.max(0, problems.length - limit) };
}

/** `3 keys, 12 paraphrases` */
export function summaryLine(r: Pick<TemplateReading, 'keys' | 'paraphrases' | 'halves'>): string {
  const n = (x: number, w: string) => `${x.toLocaleString('en')} ${w}${x === 1 ? '' : 's'}`;
  return `${n(r.keys, 'key')}, ${n(r.paraphrases, 'paraphrase')}${r.halves ? ' (train and test halves)' : ''}`;
}
