import { readTemplateFiles, type TemplateFileReading } from '../core/text/templateFile';
import { installWorker, type Handlers, type ServeContext } from './rpc';

/**
 * The template file picker's worker: reads picked files (the original CLUTRR JSON shape) with
 * core's lenient reading, off the main thread, so that a file of tens of megabytes does not
 * freeze the page. Progress is in thousandths of the whole job.
 */

export type TemplateCommands = {
  read: { body: { readonly files: readonly File[] }; chunk: never; result: TemplateFileReading };
};

/** Share of the progress bar given to loading the bytes; parsing and checking take the rest. */
const LOAD_SHARE = 0.3;
const STEPS = 1000;

/** A file's text, loaded by chunks so that loading reports progress in bytes. */
async function textOf(file: File, onBytes: (bytes: number) => void): Promise<string> {
  const parts: string[] = [];
  const decoder = new TextDecoder();
  const reader = file.stream().getReader();
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    parts.push(decoder.decode(value, { stream: true }));
    onBytes(bytes);
  }
  parts.push(decoder.decode());
  return parts.join('');
}

async function read(
  { files }: TemplateCommands['read']['body'],
  ctx: ServeContext<never>,
): Promise<TemplateFileReading> {
  const report = (fraction: number) => ctx.progress(Math.min(STEPS, Math.round(fraction * STEPS)), STEPS);
  const size = files.reduce((n, f) => n + f.size, 0) || 1;
  const texts: { name: string; text: string }[] = [];
  let loaded = 0;
  for (const file of files) {
    const text = await textOf(file, (bytes) => report((LOAD_SHARE * (loaded + bytes)) / size));
    loaded += file.size;
    texts.push({ name: file.name, text });
  }
  const reading = readTemplateFiles(texts, (fraction) => report(LOAD_SHARE + (1 - LOAD_SHARE) * fraction));
  report(1);
  return reading;
}

export const handlers: Handlers<TemplateCommands> = { read };

installWorker(handlers);
