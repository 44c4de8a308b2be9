import * as tf from '@tensorflow/tfjs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { patchWasmKernels, useBackend, wasmRowTimes } from './backend';

const wasmDir = path.dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm')) + path.sep;

afterAll(async () => {
  await tf.setBackend('cpu');
});

describe('useBackend', () => {
  it('wasm without the location of its files is refused with a message', async () => {
    await expect(useBackend('wasm')).rejects.toThrow(/location of its \.wasm files/);
  });

  it('starting wasm replaces Unpack; the replacement gives the same slices as cpu on every axis and dtype', async () => {
    const values = Array.from({ length: 2 * 3 * 4 }, (_, i) => i * 0.5 - 3);
    const slices = () =>
      tf.tidy(() => {
        const x = tf.tensor3d(values, [2, 3, 4]);
        const ints = tf.tensor2d(
          values.map((v) => Math.round(v * 2)),
          [6, 4],
          'int32',
        );
        const bools = tf.tensor1d([1, 0, 1], 'bool');
        return [0, 1, 2, -3, -1]
          .flatMap((axis) => tf.unstack(x, axis).map((t) => [...t.dataSync()]))
          .concat(tf.unstack(ints).map((t) => [...t.dataSync()]))
          .concat(tf.unstack(bools).map((t) => [...t.dataSync()]));
      });
    await tf.setBackend('cpu');
    const onCpu = slices();
    const before = tf.getKernel('Unpack', 'wasm');
    await useBackend('wasm', wasmDir);
    expect(tf.getBackend()).toBe('wasm');
    const after = tf.getKernel('Unpack', 'wasm');
    expect(after).toBeDefined();
    expect(after!.kernelFunc).not.toBe(before!.kernelFunc);
    expect(patchWasmKernels()).toBe(true);
    expect(tf.getKernel('Unpack', 'wasm')!.kernelFunc).toBe(after!.kernelFunc);
    const numTensors = tf.memory().numTensors;
    expect(slices()).toEqual(onCpu);
    expect(tf.memory().numTensors).toBe(numTensors);
  });

  it('wasmRowTimes: act(x · W + bias) as tf ops give it, a new bias every call; null off wasm', async () => {
    await useBackend('wasm', wasmDir);
    const w = tf.tensor2d(
      Array.from({ length: 5 * 7 }, (_, i) => Math.sin(i)),
      [5, 7],
    );
    const numTensors = tf.memory().numTensors;
    for (const activation of ['linear', 'sigmoid'] as const) {
      const times = wasmRowTimes(w, activation)!;
      expect(times).not.toBeNull();
      const out = new Float32Array(7);
      for (let call = 0; call < 3; call++) {
        const x = Float32Array.from({ length: 5 }, (_, i) => Math.cos(i + call));
        const bias = Float32Array.from({ length: 7 }, (_, j) => call * 0.5 - j * 0.1);
        times(x, bias, out);
        const expected = tf.tidy(() => {
          const z = tf.add(tf.matMul(tf.tensor2d(x, [1, 5]), w), tf.tensor1d(bias));
          return [...(activation === 'sigmoid' ? tf.sigmoid(z) : z).dataSync()];
        });
        [...out].forEach((v, j) => expect(v).toBeCloseTo(expected[j]!, 6));
      }
      expect(() => times(new Float32Array(4), new Float32Array(7), out)).toThrow(/expected 5 → 7 values/);
      times.dispose();
    }
    expect(tf.memory().numTensors).toBe(numTensors);
    await tf.setBackend('cpu');
    expect(wasmRowTimes(w)).toBeNull();
    w.dispose();
  });
});
