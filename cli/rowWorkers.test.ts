import { describe, expect, it } from 'vitest';
import { planDataset, tellRowBytes } from '../src/core/formats/datasetFolder';
import { DEFAULT_DATASET_VALUES, readDatasetOptions } from '../src/core/puzzle/datasetOptions';
import { datasetRenderer } from '../src/core/text/datasetText';
import { startRowMakers } from './rowWorkers';

// This thread's maker (threads need the bundle; cli/generate.test.ts runs those).
describe('row makers: released buffers', () => {
  it('fill a released buffer again with a later batch, and its bytes are the batch alone', async () => {
    const reading = readDatasetOptions({
      ...DEFAULT_DATASET_VALUES,
      trainTasks: '1.3',
      testTasks: '1.3',
      trainRows: '60',
      testRows: '0',
      seed: 'recycle',
    });
    if (!reading.ok) throw new Error(reading.problems[0]!.message);
    const { spec, text } = reading;
    const job = planDataset(spec).jobs[0]!;
    const makers = startRowMakers({ spec, text }, 1);
    try {
      const numbers = await makers.numbers(job);
      const first = await makers.tell(job, numbers.slice(0, 40), 0);
      const firstBuffer = first.buffer;
      makers.release(first);
      // A shorter batch in the same buffer: nothing of the longer one may show past its end.
      const second = await makers.tell(job, numbers.slice(40, 60), 40);
      expect(second.buffer).toBe(firstBuffer);
      const { render } = datasetRenderer(text, spec.seed);
      const fresh = tellRowBytes({ spec, job, numbers, from: 40, to: 60, indexStart: 0 }, render);
      expect(Buffer.from(second).equals(Buffer.from(fresh))).toBe(true);
    } finally {
      await makers.close();
    }
  });
});
