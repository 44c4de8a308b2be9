/**
 * public/models/index.json: every shipped model folder (`<model>/<version>/metadata.json`), what
 * its model is (the descriptor's facts, src/ml/modelKinds.ts) and what it was trained on, for the
 * app. `describeFolders` refreshes the descriptive facts of folders trained before the
 * descriptor (or before a descriptor change) without touching anything they measured.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  type ModelFacts,
  type ModelIndex,
  type ModelIndexEntry,
  type ModelMetadata,
  trainedOn,
} from '../../src/ml/model';
import { modelFacts } from '../../src/ml/modelKinds';

/** The descriptive fields a folder's metadata.json carries, in the order they are written. */
export const FACT_KEYS = ['label', 'reads', 'supervision', 'attention', 'paperModel', 'description'] as const;

function folders(root: string): { model: string; version: string; dir: string }[] {
  const out: { model: string; version: string; dir: string }[] = [];
  if (!existsSync(root)) return out;
  for (const model of readdirSync(root).sort()) {
    const dir = path.join(root, model);
    if (!statSync(dir).isDirectory()) continue;
    for (const version of readdirSync(dir).sort()) {
      if (existsSync(path.join(dir, version, 'metadata.json')))
        out.push({ model, version, dir: path.join(dir, version) });
    }
  }
  return out;
}

function readMetadata(dir: string): ModelMetadata {
  const file = path.join(dir, 'metadata.json');
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ModelMetadata;
  } catch (e) {
    throw new Error(`${file}: not JSON (${(e as Error).message})`, { cause: e });
  }
}

/**
 * A folder's facts: its metadata's, or (a folder written before the descriptor, without `reads`)
 * the descriptor's for its model id, until `npm run train -- --describe` writes them in.
 */
function factsOf(model: string, m: ModelMetadata, dir: string): ModelFacts {
  if (typeof m.reads !== 'string') return modelFacts(model, dir);
  return Object.fromEntries(FACT_KEYS.map((k) => [k, m[k]])) as unknown as ModelFacts;
}

/** The index of the folders under `root`, sorted by model then version. */
export function readModelFolders(root: string): ModelIndex {
  const models: ModelIndexEntry[] = folders(root).map(({ model, version, dir }) => {
    const m = readMetadata(dir);
    return {
      id: `${model}/${version}`,
      model,
      version,
      kind: m.kind,
      ...factsOf(model, m, dir),
      trainedOn: trainedOn(m),
      weightBytes: statSync(path.join(dir, 'weights.bin')).size,
    };
  });
  return { models };
}

export function writeModelIndex(root: string): void {
  writeFileSync(path.join(root, 'index.json'), JSON.stringify(readModelFolders(root), null, 2) + '\n');
}

/**
 * Metadata with the descriptor's facts for `model` written in after `kind` (replacing any older
 * ones, e.g. the label "GAT, improved"); every other field, accuracies included, kept as it is.
 */
export function describedMetadata(model: string, metadata: Record<string, unknown>): Record<string, unknown> {
  const facts = modelFacts(model, `${model} metadata.json`);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(metadata)) {
    if ((FACT_KEYS as readonly string[]).includes(key)) continue;
    out[key] = value;
    if (key === 'kind') Object.assign(out, facts);
  }
  return 'kind' in metadata ? out : { ...out, ...facts };
}

/**
 * `npm run train -- --describe`: rewrites the descriptive facts of every folder under `root`
 * from the descriptor (nothing else), then index.json. Returns the folder ids whose
 * metadata.json changed.
 */
export function describeFolders(root: string): string[] {
  const changed: string[] = [];
  for (const { model, version, dir } of folders(root)) {
    const file = path.join(dir, 'metadata.json');
    const before = readFileSync(file, 'utf8');
    const after =
      JSON.stringify(describedMetadata(model, JSON.parse(before) as Record<string, unknown>), null, 2) + '\n';
    if (after !== before) {
      writeFileSync(file, after);
      changed.push(`${model}/${version}`);
    }
  }
  writeModelIndex(root);
  return changed;
}
