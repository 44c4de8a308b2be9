/**
 * Model folders as the command line reads them (`eval`, `study simulate`): the project's own
 * `public/models`, a folder's model.json and weights.bin loaded through src/ml/load.ts, and the
 * tfjs backend started with the wasm files from the installed package (never a CDN).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BackendName, useBackend } from '../src/ml/backend';
import { loadModel } from '../src/ml/load';
import type { ClutrrModel } from '../src/ml/model';
import { CliError } from './errors';

/** The project folder (its package.json is clutrr-lab's), found from this module's place. */
export function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg) && /"name":\s*"clutrr-lab"/.test(readFileSync(pkg, 'utf8'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new CliError('cannot find the clutrr-lab project folder to load shipped models from');
    dir = up;
  }
}

/** The shipped models' folder, `public/models` of the project. */
export const shippedModelsDir = (): string => path.join(projectRoot(), 'public', 'models');

/** tfjs on `backend`, its wasm files from the installed @tensorflow/tfjs-backend-wasm. */
export async function startBackend(backend: BackendName): Promise<void> {
  const wasmDir = path.dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm'));
  await useBackend(backend, wasmDir + path.sep);
}

/** The model in folder `dir` (model.json + weights.bin); errors name `label` and the file. */
export function readModelFolder(dir: string, label: string): ClutrrModel {
  const json = path.join(dir, 'model.json');
  const bin = path.join(dir, 'weights.bin');
  if (!existsSync(json) || !existsSync(bin)) throw new CliError(`${label}: no model.json and weights.bin in ${dir}`);
  let modelJson: unknown;
  try {
    modelJson = JSON.parse(readFileSync(json, 'utf8'));
  } catch (e) {
    throw new CliError(`${json}: not JSON (${(e as Error).message})`);
  }
  const weights = readFileSync(bin);
  try {
    return loadModel(modelJson, weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength));
  } catch (e) {
    throw new CliError(`${label}: ${(e as Error).message}`);
  }
}
