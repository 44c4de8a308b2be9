/**
 * A model folder as bytes: `model.json`, `weights.bin`, `metadata.json` (public/models'
 * layout). Writing is the caller's (files in Node, a download in the browser); here the three
 * files are made and a folder someone hands back is checked before anything loads it.
 */
import type { ModelMetadata } from '../model';

export const FOLDER_FILES = ['model.json', 'weights.bin', 'metadata.json'] as const;
export type FolderFile = (typeof FOLDER_FILES)[number];

/** A model folder's contents, parsed. */
export interface ModelFolder {
  readonly modelJson: unknown;
  readonly weights: ArrayBuffer;
  readonly metadata: ModelMetadata;
}

/** The three files' bytes. */
export function folderFiles(
  modelJson: object,
  weights: ArrayBuffer,
  metadata: ModelMetadata,
): Record<FolderFile, Uint8Array> {
  const utf8 = new TextEncoder();
  return {
    'model.json': utf8.encode(JSON.stringify(modelJson)),
    'weights.bin': new Uint8Array(weights),
    'metadata.json': utf8.encode(JSON.stringify(metadata, null, 2) + '\n'),
  };
}

/** A folder that is not one of ours: the message says what is missing or wrong, and where. */
export class NotAModelFolderError extends Error {
  override name = 'NotAModelFolderError';
}

/**
 * Parses a folder's files (by base name; other files are ignored) and checks the shape of each:
 * model.json has a `format` and a weights manifest whose bytes match weights.bin's size,
 * metadata.json names its model, kind and training. `what` names the folder in messages.
 */
export function readModelFolder(files: ReadonlyMap<string, Uint8Array>, what: string): ModelFolder {
  const missing = FOLDER_FILES.filter((f) => !files.has(f));
  if (missing.length > 0)
    throw new NotAModelFolderError(
      `${what} is not a model folder: ${missing.join(', ')} missing (a model folder holds ${FOLDER_FILES.join(', ')})`,
    );
  const json = (name: FolderFile): Record<string, unknown> => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder().decode(files.get(name)));
    } catch (e) {
      throw new NotAModelFolderError(`${what}: ${name} is not JSON (${(e as Error).message})`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new NotAModelFolderError(`${what}: ${name} is not a JSON object`);
    return parsed as Record<string, unknown>;
  };
  const modelJson = json('model.json');
  if (typeof modelJson.format !== 'string' || !modelJson.format.startsWith('clutrr-lab/'))
    throw new NotAModelFolderError(
      `${what}: model.json has no clutrr-lab format (got ${JSON.stringify(modelJson.format)})`,
    );
  const metadata = json('metadata.json');
  for (const key of ['model', 'kind', 'version'] as const)
    if (typeof metadata[key] !== 'string') throw new NotAModelFolderError(`${what}: metadata.json has no "${key}"`);
  const training = metadata.training as Record<string, unknown> | undefined;
  if (typeof training !== 'object' || training === null || !Array.isArray(training.tasks))
    throw new NotAModelFolderError(`${what}: metadata.json has no "training" with its tasks`);
  const bin = files.get('weights.bin')!;
  const expected = manifestBytes(modelJson);
  if (expected !== null && expected !== bin.byteLength)
    throw new NotAModelFolderError(
      `${what}: weights.bin holds ${bin.byteLength} bytes, but model.json's manifest says ${expected}`,
    );
  const weights = bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength) as ArrayBuffer;
  return { modelJson, weights, metadata: metadata as unknown as ModelMetadata };
}

/** The bytes model.json's tfjs weights manifest describes (float32 and int32: 4 a value), or null without one. */
function manifestBytes(modelJson: Record<string, unknown>): number | null {
  const manifest = modelJson.weightsManifest;
  if (!Array.isArray(manifest)) return null;
  let bytes = 0;
  for (const group of manifest as { weights?: { shape?: number[]; dtype?: string }[] }[]) {
    for (const w of group.weights ?? []) {
      if (!Array.isArray(w.shape)) return null;
      const size = w.shape.reduce((a, b) => a * b, 1);
      bytes += size * (w.dtype === 'bool' || w.dtype === 'uint8' ? 1 : 4);
    }
  }
  return bytes;
}
