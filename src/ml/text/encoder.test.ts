import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { embed } from './encoder';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

// The encoder's recurrent paths are checked against each other through a model in lstm.test.ts.
describe('BiLSTM encoder', () => {
  it("the embedding's gradient (rows of dy summed per token) is gather's own", () => {
    const table = tf.tensor2d(
      Array.from({ length: 6 * 3 }, (_, i) => i / 10),
      [6, 3],
    );
    const ids = tf.tensor1d([4, 1, 4, 0, 5, 4], 'int32');
    const weights = tf.tensor2d(
      Array.from({ length: 6 * 3 }, (_, i) => Math.cos(i)),
      [6, 3],
    );
    const loss = (rows: (e: tf.Tensor2D) => tf.Tensor2D) => (e: tf.Tensor) =>
      tf.sum(tf.mul(rows(e as tf.Tensor2D), weights));
    const ours = tf.grad(loss((e) => embed(e, ids)))(table);
    const theirs = tf.grad(loss((e) => tf.gather(e, ids)))(table);
    const expected = theirs.dataSync();
    expect(expected.some((x) => Math.abs(x) > 1)).toBe(true);
    ours.dataSync().forEach((x, i) => expect(x).toBeCloseTo(expected[i]!, 5));
    expect(ours.dataSync()[2 * 3]).toBe(0); // token 2 never occurs
    tf.dispose([table, ids, weights, ours, theirs]);
  });
});
