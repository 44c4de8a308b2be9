import { Unzip, UnzipInflate } from 'fflate';
import { auditCsv, type AuditedRow, CsvAudit, type FileAudit, NO_ROWS } from '../core/formats/audit';
import { CsvFormatError } from '../core/formats/clutrrRow';
import { addAuditedRows, createStoryStats, type StoryStatsTallies } from '../core/formats/storyStats';
import type {
  AuditBody,
  AuditChunk,
  AuditCommands,
  AuditedFile,
  AuditResult,
  FormatProblem,
  RowBudget,
} from './auditProtocol';
import { installWorker, type ServeContext } from './rpc';

/**
 * The audit worker: dropped CSV files and zips are read as byte streams, decoded and audited by
 * core's auditCsv in batches, so neither a file nor its rows are ever held whole. Rows go to the
 * page only while the request's RowBudget lasts; every file's counts and story statistics go in
 * full.
 */
export async function auditFiles(body: AuditBody, ctx: ServeContext<AuditChunk>): Promise<AuditResult> {
  const total = Math.max(
    1,
    body.files.reduce((s, f) => s + f.data.size, 0),
  );
  let before = 0;
  const keeper = new RowKeeper(body.keep);
  const files: AuditedFile[] = [];
  for (const f of body.files) {
    const read = (bytes: number) => ctx.progress(Math.min(total - 1, before + bytes), total);
    const done = (await isZip(f.name, f.data))
      ? await auditZip(f.name, f.data, keeper, ctx, read)
      : [await auditCsvFile(f.name, f.data, keeper, ctx, read)];
    for (const { file, stats } of done) {
      files.push(file);
      if (stats) ctx.chunk({ kind: 'stats', file: file.name, stats });
      ctx.chunk({ kind: 'file', file });
    }
    before += f.data.size;
  }
  ctx.progress(total, total);
  return { files };
}

installWorker<AuditCommands>({ audit: auditFiles });

/** A file's outcome; `stats` only when it was read whole. */
interface Done {
  readonly file: AuditedFile;
  readonly stats?: StoryStatsTallies;
}

/** Decides which rows go to the page, and gives back a file's share when the file is rejected. */
class RowKeeper {
  private first: number;
  private notEntailed: number;

  constructor(budget: RowBudget) {
    this.first = Math.max(0, budget.first);
    this.notEntailed = Math.max(0, budget.notEntailed);
  }

  /** A tally for one file: `take` filters its batches, `refund` returns what it took. */
  forFile(send: (rows: AuditedRow[]) => void) {
    let first = 0;
    let notEntailed = 0;
    return {
      take: (rows: readonly AuditedRow[]) => {
        const kept: AuditedRow[] = [];
        for (const r of rows) {
          if (this.first > 0) {
            this.first--;
            first++;
          } else if ((r.verdict !== 'entailed' || r.basis?.kind === 'assumed') && this.notEntailed > 0) {
            this.notEntailed--;
            notEntailed++;
          } else continue;
          kept.push(r);
        }
        if (kept.length > 0) send(kept);
      },
      refund: () => {
        this.first += first;
        this.notEntailed += notEntailed;
        first = notEntailed = 0;
      },
      kept: () => first + notEntailed,
    };
  }
}

async function auditCsvFile(
  name: string,
  data: Blob,
  keeper: RowKeeper,
  ctx: ServeContext<AuditChunk>,
  read: (bytes: number) => void,
): Promise<Done> {
  const tally = keeper.forFile((rows) => ctx.chunk({ kind: 'rows', file: name, rows }));
  const stats = createStoryStats();
  const onRows = (rows: AuditedRow[]) => {
    addAuditedRows(stats, rows);
    tally.take(rows);
  };
  try {
    const file = audited(await auditCsv(textChunks(data, read), { file: name, onRows }), tally.kept());
    return { file, stats: stats.tallies() };
  } catch (e) {
    if (!(e instanceof CsvFormatError)) throw e;
    tally.refund();
    return { file: rejected(name, problemOf(e)) };
  }
}

/** A blob's text, decoded chunk by chunk; `read` hears the bytes consumed so far. */
async function* textChunks(data: Blob, read: (bytes: number) => void): AsyncGenerator<string> {
  const reader = data.stream().getReader();
  // Not fatal: bad bytes become U+FFFD, as when the whole file was decoded at once.
  const decoder = new TextDecoder('utf-8');
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
      read(bytes);
      yield decoder.decode(value, { stream: true });
    }
    yield decoder.decode();
  } finally {
    // An audit that stops at a malformed row leaves the rest unread.
    await reader.cancel().catch(() => {});
  }
}

/**
 * Each `.csv` entry of a zip, inflated and audited as the zip's bytes stream in (fflate's
 * streaming Unzip calls back synchronously from `push`). Entries are reported by name at the end;
 * a zip that cannot be read is one problem file.
 */
async function auditZip(
  name: string,
  data: Blob,
  keeper: RowKeeper,
  ctx: ServeContext<AuditChunk>,
  read: (bytes: number) => void,
): Promise<Done[]> {
  const head = await zipSignature(data);
  if (head === 'none')
    return [{ file: rejected(name, plainProblem(name, 'not a readable zip: it does not start as a zip file does')) }];
  if (head === 'empty') return [{ file: rejected(name, plainProblem(name, 'the zip holds no .csv file')) }];
  const entries: Done[] = [];
  const refunds: (() => void)[] = [];
  let bug: unknown = null;
  const unzip = new Unzip((entry) => {
    if (!/\.csv$/i.test(entry.name) || entry.name.startsWith('__MACOSX/')) return;
    const file = `${name}/${entry.name}`;
    const tally = keeper.forFile((rows) => ctx.chunk({ kind: 'rows', file, rows }));
    refunds.push(tally.refund);
    const stats = createStoryStats();
    const audit = new CsvAudit({
      file,
      onRows: (rows) => {
        addAuditedRows(stats, rows);
        tally.take(rows);
      },
    });
    const decoder = new TextDecoder('utf-8');
    let open = true;
    const fail = (problem: FormatProblem) => {
      open = false;
      tally.refund();
      entries.push({ file: rejected(file, problem) });
      entry.terminate();
    };
    entry.ondata = (err, chunk, final) => {
      if (!open) return;
      if (err) return fail(plainProblem(file, `not a readable zip entry: ${err.message}`));
      try {
        audit.push(decoder.decode(chunk, { stream: !final }));
        if (!final) return;
        open = false;
        entries.push({ file: audited(audit.end(), tally.kept()), stats: stats.tallies() });
      } catch (e) {
        if (e instanceof CsvFormatError) return fail(problemOf(e));
        bug = e;
        throw e;
      }
    };
    entry.start();
  });
  unzip.register(UnzipInflate);
  const reader = data.stream().getReader();
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      unzip.push(value, false);
      bytes += value.length;
      read(bytes);
    }
    unzip.push(new Uint8Array(0), true);
  } catch (e) {
    if (bug) throw bug;
    await reader.cancel().catch(() => {});
    for (const refund of refunds) refund();
    return [{ file: rejected(name, plainProblem(name, `not a readable zip: ${(e as Error).message}`)) }];
  }
  if (entries.length === 0) return [{ file: rejected(name, plainProblem(name, 'the zip holds no .csv file')) }];
  return entries.sort((a, b) => (a.file.name < b.file.name ? -1 : a.file.name > b.file.name ? 1 : 0));
}

/** A `.zip` name, or a zip by its first bytes whatever its name. */
async function isZip(name: string, data: Blob): Promise<boolean> {
  return /\.zip$/i.test(name) || (await zipSignature(data)) === 'entries';
}

/** A zip starts with a local file header, or (holding nothing) with the end-of-archive record. */
async function zipSignature(data: Blob): Promise<'entries' | 'empty' | 'none'> {
  const [p, k, a, b] = new Uint8Array(await data.slice(0, 4).arrayBuffer());
  if (p !== 0x50 || k !== 0x4b) return 'none';
  if (a === 0x03 && b === 0x04) return 'entries';
  return a === 0x05 && b === 0x06 ? 'empty' : 'none';
}

const audited = (a: FileAudit, kept: number): AuditedFile => ({
  name: a.file,
  rows: a.rows,
  entailed: a.entailed,
  ambiguous: a.ambiguous,
  unsupported: a.unsupported,
  assumed: a.assumed,
  impossible: a.impossible,
  byK: a.byK,
  kept,
});

const rejected = (name: string, error: FormatProblem): AuditedFile => ({ name, ...NO_ROWS, byK: [], kept: 0, error });

const problemOf = (e: CsvFormatError): FormatProblem => ({
  message: e.message,
  detail: e.detail,
  file: e.where.file,
  row: e.where.row,
  column: e.where.column,
});

const plainProblem = (file: string, detail: string): FormatProblem => problemOf(new CsvFormatError(detail, { file }));
