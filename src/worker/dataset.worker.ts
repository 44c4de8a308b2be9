/// <reference lib="webworker" />
import { unzipSync, zipSync } from 'fflate';
import { clutrrFields, parseClutrrCsv } from '../core/formats/clutrrCsv';
import { CsvFormatError, type ClutrrRow } from '../core/formats/clutrrRow';
import { writeCsv } from '../core/formats/csv';
import { rowsToClutrr } from '../core/formats/fromPuzzle';
import { rowK } from '../core/formats/toPuzzle';
import { generateTaskRows } from '../core/puzzle/dataset';
import { checkRow } from '../core/reasoning/checkRow';
import { datasetRenderer } from '../core/text/datasetText';
import {
  AUDIT_CHUNK_ROWS,
  type AuditBody,
  type AuditedFile,
  type AuditedRow,
  type AuditResult,
  type DatasetCommands,
  type DatasetRequest,
  type DatasetResponse,
  type FormatProblem,
  type GenerateBody,
  type GenerateResult,
  jobKey,
  PREVIEW_CHUNK_ROWS,
  type PreviewRow,
  PROGRESS_INTERVAL_MS,
  type SerialiseBody,
  type WorkerProblem,
  type ZipBody,
} from './datasetProtocol';

/**
 * The dataset worker: dispatches each request to core functions (generateTaskRows, rowsToClutrr,
 * writeCsv, parseClutrrCsv, checkRow, fflate) and streams the answer: progress at most every
 * 50 ms, rows in chunks, bytes as transferred buffers. It keeps the rows of the current run so
 * that serialising them later needs no second generation. Cancel is terminate:
 * the client kills the worker and starts a fresh one.
 *
 * `createDatasetDispatcher` is exported so tests drive the same code in Node with a fake worker.
 */
export type Post = (msg: DatasetResponse, transfer?: Transferable[]) => void;

export function createDatasetDispatcher(post: Post): (req: DatasetRequest) => Promise<void> {
  let currentRun = -1;
  const cache = new Map<string, ClutrrRow[]>();

  const progress = (id: number) => {
    let last = -Infinity;
    return (done: number, total: number) => {
      const now = performance.now();
      if (done < total && now - last < PROGRESS_INTERVAL_MS) return;
      last = now;
      post({ id, type: 'progress', done, total });
    };
  };
  const chunks = <T>(id: number, items: readonly T[], size: number, wrap: (part: readonly T[]) => unknown) => {
    for (let i = 0; i < items.length; i += size) post({ id, type: 'chunk', chunk: wrap(items.slice(i, i + size)) });
  };

  const generate = (id: number, body: GenerateBody): GenerateResult => {
    if (body.runId !== currentRun) {
      cache.clear();
      currentRun = body.runId;
    }
    const { render, name, describe } = datasetRenderer(body.text, body.spec.seed, body.templates);
    const rows = generateTaskRows(body.spec, body.job.task, body.job.split, progress(id));
    const clutrr = rowsToClutrr(rows, render);
    cache.set(jobKey(body.job), clutrr);
    const preview: PreviewRow[] = rows.map((r, i) => ({
      id: r.id,
      split: r.split,
      task: r.puzzle.task,
      k: r.puzzle.k,
      pattern: r.puzzle.pattern,
      target: r.puzzle.target.word,
      query: clutrr[i]!.query,
      story: clutrr[i]!.story,
    }));
    chunks(id, preview, PREVIEW_CHUNK_ROWS, (part) => part);
    const patterns = new Map<string, number>();
    for (const r of rows) patterns.set(r.puzzle.pattern, (patterns.get(r.puzzle.pattern) ?? 0) + 1);
    return { rows: rows.length, renderer: name, describe, patterns: [...patterns] };
  };

  const serialise = (body: SerialiseBody): Uint8Array => {
    const rows = body.runId === currentRun ? cache.get(body.jobKey) : undefined;
    if (!rows) throw new Error(`the rows of ${body.jobKey} are no longer in memory; generate the dataset again`);
    const records = rows.map((r, i) => clutrrFields({ ...r, index: String(body.offset + i) }));
    return new TextEncoder().encode(writeCsv(records));
  };

  const zip = (body: ZipBody): Uint8Array => {
    const entries: Record<string, Uint8Array> = {};
    for (const f of body.files) entries[f.path] = concat(f.parts);
    return zipSync(entries, { level: 6 });
  };

  const audit = async (id: number, body: AuditBody): Promise<AuditResult> => {
    // Files (and zip entries) in the order given; a zip that cannot be read is one problem file.
    const units: ({ name: string; text: string } | AuditedFile)[] = [];
    for (const f of body.files) {
      const bytes = new Uint8Array(await f.data.arrayBuffer());
      if (!isZip(f.name, bytes)) {
        units.push({ name: f.name, text: decode(bytes) });
        continue;
      }
      try {
        const entries = unzipSync(bytes, { filter: (e) => /\.csv$/i.test(e.name) && !e.name.startsWith('__MACOSX/') });
        const names = Object.keys(entries).sort();
        if (names.length === 0) units.push(fileProblem(f.name, 'the zip holds no .csv file'));
        for (const n of names) units.push({ name: `${f.name}/${n}`, text: decode(entries[n]!) });
      } catch (e) {
        units.push(fileProblem(f.name, `not a readable zip: ${(e as Error).message}`));
      }
    }
    const files: AuditedFile[] = [];
    let done = 0;
    const size = (u: (typeof units)[number]) => ('text' in u ? Math.max(1, u.text.length) : 1);
    const total = units.reduce((s, u) => s + size(u), 0);
    const tick = progress(id);
    for (const unit of units) {
      if ('text' in unit) files.push(auditText(id, unit.name, unit.text));
      else files.push(unit);
      done += size(unit);
      tick(done, total);
    }
    return { files };
  };

  /** Parses and checks one CSV text; rows stream only when the whole file is well formed. */
  const auditText = (id: number, name: string, text: string): AuditedFile => {
    try {
      const rows = parseClutrrCsv(text, name);
      const audited: AuditedRow[] = rows.map((row, i) => {
        try {
          const check = checkRow(row);
          return {
            file: name,
            n: i + 1,
            row,
            k: rowK(row),
            verdict: check.verdict,
            derived: check.derived,
            truncated: check.truncated,
          };
        } catch (e) {
          // As the CLI's check: a relation word the rule base does not know names its row.
          if (e instanceof CsvFormatError)
            throw new CsvFormatError(e.detail, { file: name, row: i + 1, column: e.where.column });
          throw e;
        }
      });
      chunks(id, audited, AUDIT_CHUNK_ROWS, (part) => ({ rows: part }));
      return { name, rows: audited.length };
    } catch (e) {
      if (!(e instanceof CsvFormatError)) throw e;
      return { name, rows: 0, error: formatProblem(e) };
    }
  };

  return async (req) => {
    try {
      let result: DatasetCommands[typeof req.command]['result'];
      let transfer: Transferable[] = [];
      switch (req.command) {
        case 'generate':
          result = generate(req.id, req.body);
          break;
        case 'serialise':
        case 'zip': {
          const bytes = req.command === 'zip' ? zip(req.body) : serialise(req.body);
          result = bytes;
          transfer = [bytes.buffer as ArrayBuffer];
          break;
        }
        case 'audit':
          result = await audit(req.id, req.body);
          break;
      }
      post({ id: req.id, type: 'result', result }, transfer);
    } catch (err) {
      post({ id: req.id, type: 'error', error: toProblem(err) });
    }
  };
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const isZip = (name: string, bytes: Uint8Array) =>
  /\.zip$/i.test(name) || (bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04);

const decode = (bytes: Uint8Array) => new TextDecoder('utf-8').decode(bytes);

const formatProblem = (e: CsvFormatError): FormatProblem => ({
  message: e.message,
  detail: e.detail,
  file: e.where.file,
  row: e.where.row,
  column: e.where.column,
});

const fileProblem = (file: string, detail: string): AuditedFile => ({
  name: file,
  rows: 0,
  error: formatProblem(new CsvFormatError(detail, { file })),
});

function toProblem(err: unknown): WorkerProblem {
  const e = err instanceof Error ? err : new Error(String(err));
  return e instanceof CsvFormatError
    ? { name: e.name, message: e.message, where: e.where }
    : { name: e.name, message: e.message };
}

// Installed only inside a real worker, so Node tests can import the dispatcher.
if (typeof WorkerGlobalScope !== 'undefined' && self instanceof WorkerGlobalScope) {
  const scope = self as unknown as DedicatedWorkerGlobalScope;
  const dispatch = createDatasetDispatcher((msg, transfer) => scope.postMessage(msg, transfer ?? []));
  scope.onmessage = (event: MessageEvent<DatasetRequest>) => void dispatch(event.data);
}
