// One way to run the project's TypeScript entry points from Node (the CLI, the results server):
// bundle the entry with esbuild (about a tenth of a second, skipped when the bundle is newer than
// every source it is made of) and import the bundle. A bundle, not a per-file transpiler, so the
// generator's hot loops run at full speed (per-file module shims slow them several times over).
// esbuild itself is imported only when a bundle is out of date: loading it costs about 50 ms of
// every command's start on this machine.
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Newest modification time of the files under these folders (relative to the root). */
function newest(dirs) {
  let t = 0;
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else t = Math.max(t, statSync(p).mtimeMs);
    }
  };
  for (const d of dirs) walk(path.join(root, d));
  return t;
}

/**
 * Chunk names carry a hash of their content, so every rebuild leaves the previous build's chunks
 * behind. Those this build did not write are removed once they are a day old: a process started
 * before the rebuild may still import one of them (commands are loaded on demand).
 */
function dropStaleChunks(dir, written) {
  const keep = new Set(written.map((f) => f.path));
  const dayAgo = Date.now() - 24 * 3600 * 1000;
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (keep.has(p)) continue;
    try {
      if (statSync(p).mtimeMs < dayAgo) unlinkSync(p);
    } catch {
      // Removed meanwhile by another process rebuilding at the same time.
    }
  }
}

/**
 * Bundles `entry` into `outfile` unless the bundle is newer than everything under `sources`
 * (and the `scripts` folder, where this file lives), then imports it and returns the module.
 * `options` go to esbuild (e.g. `external`, `packages`, `banner`). With `splitting: true`, code
 * reached only through `import()` goes to chunk files beside it (`chunks/`), so what a rarely
 * used command loads (tfjs for `eval`) is not loaded by every command; `entries` (name → source,
 * with splitting only) are further entry points written beside the bundle, and the code they share
 * with it goes to chunks too (a worker thread can then load just the chunk its module is in).
 */
export async function importBundled({ entry, outfile, sources, entries = {}, options = {} }) {
  const out = path.join(root, outfile);
  const fresh = existsSync(out) && statSync(out).mtimeMs > newest([...sources, 'scripts']);
  if (!fresh) {
    const { build } = await import('esbuild');
    const split = options.splitting === true;
    const result = await build({
      write: false,
      entryPoints: split
        ? {
            [path.basename(out, '.mjs')]: path.join(root, entry),
            ...Object.fromEntries(Object.entries(entries).map(([name, source]) => [name, path.join(root, source)])),
          }
        : [path.join(root, entry)],
      ...(split
        ? {
            outdir: path.dirname(out),
            entryNames: '[name]',
            chunkNames: 'chunks/[name]-[hash]',
            outExtension: { '.js': '.mjs' },
          }
        : { outfile: out }),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      // A map file beside each bundle (used by `node --enable-source-maps`), not inline: an
      // inline map is two thirds of the bundle's bytes, read and scanned at every start.
      sourcemap: 'linked',
      logLevel: 'warning',
      ...options,
    });
    // Written aside and renamed into place: several processes may start at once (tests do).
    // Chunks first (content-hashed names), the entry last.
    const files = [...result.outputFiles].sort((a, b) => (a.path === out) - (b.path === out));
    for (const file of files) {
      mkdirSync(path.dirname(file.path), { recursive: true });
      const aside = `${file.path}.${process.pid}.tmp`;
      writeFileSync(aside, file.contents);
      renameSync(aside, file.path);
    }
    if (split) dropStaleChunks(path.join(path.dirname(out), 'chunks'), files);
  }
  // Paths on the command line are the user's: npm runs scripts from the project root, but says
  // where it was started in INIT_CWD.
  if (process.env.INIT_CWD && existsSync(process.env.INIT_CWD)) process.chdir(process.env.INIT_CWD);
  return import(pathToFileURL(out).href);
}
