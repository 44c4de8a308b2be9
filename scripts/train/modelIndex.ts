/** public/models/index.json: every shipped model folder (`<model>/<version>/metadata.json`), for the app. */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ModelIndex, ModelIndexEntry, ModelMetadata } from '../../src/ml/model';

/** The index of the folders under `root`, sorted by model then version. */
export function readModelFolders(root: string): ModelIndex {
  const models: ModelIndexEntry[] = [];
  if (!existsSync(root)) return { models };
  for (const model of readdirSync(root).sort()) {
    const dir = path.join(root, model);
    if (!statSync(dir).isDirectory()) continue;
    for (const version of readdirSync(dir).sort()) {
      const meta = path.join(dir, version, 'metadata.json');
      if (!existsSync(meta)) continue;
      const m = JSON.parse(readFileSync(meta, 'utf8')) as ModelMetadata;
      models.push({
        id: `${model}/${version}`,
        model,
        version,
        kind: m.kind,
        label: m.label,
        weightBytes: statSync(path.join(dir, version, 'weights.bin')).size,
      });
    }
  }
  return { models };
}

export function writeModelIndex(root: string): void {
  writeFileSync(path.join(root, 'index.json'), JSON.stringify(readModelFolders(root), null, 2) + '\n');
}
