// The shipped model folders, part 1 of 2 (shippedModels.ts: what is checked, and which part checks which folder).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { folderFacts, reproduce, shippedEntries, shippedIndex, useWasmBackend } from './shippedModels';

let restore = async (): Promise<void> => undefined;
beforeAll(async () => {
  restore = await useWasmBackend();
});
afterAll(() => restore());

describe('shipped models (public/models), part 1 of 2', () => {
  it('index.json lists exactly the model folders', () => {
    const { shipped, fromFolders } = shippedIndex();
    expect(shipped).toEqual(fromFolders);
  });

  for (const entry of shippedEntries(1)) {
    it(`${entry.id}: metadata.json and model.json say what the descriptor (src/ml/modelKinds.ts) says`, () => {
      const f = folderFacts(entry);
      expect(f.facts, 'stale: run npm run train -- --describe').toEqual(f.described);
      expect(f.format).toBe(f.describedFormat);
    });

    it(
      `${entry.id}: the shipped weights reproduce metadata.json's accuracies`,
      async () => {
        const r = await reproduce(entry);
        expect(r.rows.every((n) => n === r.recordedRows)).toBe(true);
        expect(r.got).toEqual(r.recorded);
        expect(r.robustness).toEqual(r.recordedRobustness);
      },
      15 * 60_000,
    );
  }
});
