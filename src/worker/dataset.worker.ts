/// <reference lib="webworker" />
import { Zip, ZipDeflate } from 'fflate';
import { tellRows } from '../core/formats/datasetFolder';
import { reindexCsv } from '../core/formats/reindex';
import { taskRowNumbers } from '../core/puzzle/dataset';
import { datasetRenderer, factsTold } from '../core/text/datasetText';
import { CHUNK_ROWS, type DatasetCommands, type PreviewRow } from './datasetProtocol';
import { type Handlers, installWorker, type ServeContext } from './rpc';

/**
 * The dataset worker: each command calls core (taskRowNumbers, tellRows, reindexCsv) or fflate
 * and streams its answer in chunks, moving bytes rather than copying them. It keeps nothing
 * between requests: a job's rows leave as CSV bytes as soon as they are made.
 */
const encoder = new TextEncoder();

export const datasetHandlers: Handlers<DatasetCommands> = {
  generate(body, ctx) {
    const { render, name, describe, tally, source } = datasetRenderer(body.text, body.spec.seed, body.templates, {
      templatesOnly: body.templatesOnly === true && body.templates !== undefined,
    });
    // With --equal, choosing the rows is the first half of the work; otherwise there is nothing
    // to report before the rows themselves.
    const base = body.spec.equal ? 0.5 : 0;
    const numbers = taskRowNumbers(
      body.spec,
      body.job.task,
      body.job.split,
      body.spec.equal ? (d, n) => ctx.progress(d * base, n) : undefined,
    );
    const total = numbers.length;
    const patterns = new Map<string, number>();
    for (let from = 0; from < total; from += CHUNK_ROWS) {
      const to = Math.min(total, from + CHUNK_ROWS);
      const batch = tellRows(
        { spec: body.spec, job: body.job, numbers, from, to, indexStart: body.indexStart },
        render,
      );
      const preview: PreviewRow[] = [];
      batch.rows.forEach(({ row, clutrr }, i) => {
        patterns.set(row.puzzle.pattern, (patterns.get(row.puzzle.pattern) ?? 0) + 1);
        if (from + i >= body.previewRows) return;
        preview.push({
          id: row.id,
          split: row.split,
          task: row.puzzle.task,
          k: row.puzzle.k,
          pattern: row.puzzle.pattern,
          target: row.puzzle.target.word,
          query: clutrr.query,
          story: clutrr.story,
        });
      });
      const csv = encoder.encode(batch.csv);
      ctx.chunk({ csv, rows: to - from, preview }, [csv.buffer]);
      ctx.progress(Math.round(total * (base + (1 - base) * (to / total))), total);
    }
    return { rows: total, renderer: name, describe, patterns: [...patterns], told: factsTold(tally, source) };
  },

  async zip(body, ctx) {
    const bytesIn = body.files.reduce((s, f) => s + f.parts.reduce((t, p) => t + p.size, 0), 0);
    let read = 0;
    let failure: Error | null = null;
    let finished = false;
    const zip = new Zip((err, data, final) => {
      if (err) failure = err;
      else if (data.length > 0) {
        // A copy of our own to move: fflate may still hold the buffer behind `data`.
        const own = data.slice();
        ctx.chunk(own, [own.buffer]);
      }
      if (final) finished = true;
    });
    for (const f of body.files) {
      const entry = new ZipDeflate(f.path, { level: 6 });
      zip.add(entry);
      for (const part of f.parts) {
        for await (const piece of blobPieces(part)) {
          entry.push(piece);
          read += piece.length;
          ctx.progress(read, bytesIn);
        }
      }
      entry.push(new Uint8Array(0), true);
      if (failure) throw failure;
    }
    zip.end();
    if (failure) throw failure;
    if (!finished) throw new Error('the zip was not finished');
    return null;
  },

  async reindex(body, ctx) {
    const total = body.parts.reduce((s, p) => s + p.records.size, 0);
    let read = 0;
    for (const part of body.parts) {
      const next = reindexCsv(part.indexStart);
      const decoder = new TextDecoder();
      for await (const piece of blobPieces(part.records)) {
        read += piece.length;
        send(ctx, next(decoder.decode(piece, { stream: true })));
        ctx.progress(read, total);
      }
      send(ctx, next(decoder.decode(), true));
    }
    return null;
  },
};

function send(ctx: ServeContext<Uint8Array>, text: string): void {
  if (text.length === 0) return;
  const bytes = encoder.encode(text);
  ctx.chunk(bytes, [bytes.buffer]);
}

/** A Blob's bytes a piece at a time (about 64 KB each), never the whole Blob at once. */
async function* blobPieces(blob: Blob): AsyncGenerator<Uint8Array> {
  const reader = blob.stream().getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    yield value;
  }
}

installWorker(datasetHandlers);
