import * as tf from '@tensorflow/tfjs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../core/random/rng';
import { useBackend } from '../backend';
import { NUM_CLASSES } from '../encoding';
import { loadModel } from '../load';
import { evaluate, textItems, textModel, trainStep } from './textNet';
import { loadMac, Mac, MAC_PAPER, type MacConfig, saveMac } from './mac';
import type { ModelQuestion } from '../model';
import { generatedQuestions, question, QUESTIONS, tokenizerOf } from './textModelFixtures';
import { learnTokenizer } from './tokens';

// Small enough for a unit test; the code paths are those of the paper-sized model.
const TINY: MacConfig = { ...MAC_PAPER, embeddingDim: 8, hidden: 3, steps: 3, decoderHidden: 12 };
const tokens = tokenizerOf(QUESTIONS);
const batchOf = (model: Mac, qs: readonly ModelQuestion[] = QUESTIONS) => model.batch(textItems(qs));

beforeAll(async () => {
  await tf.setBackend('cpu');
});

/** A weight's values as rows (a 2-D weight) or one row (a vector). */
function rows(model: Mac, name: string): number[][] {
  const v = model.variables.get(name)!;
  const flat = [...v.dataSync()];
  const cols = v.shape.length === 2 ? v.shape[1]! : flat.length;
  return Array.from({ length: flat.length / cols }, (_, r) => flat.slice(r * cols, (r + 1) * cols));
}
const affine = (x: number[], w: number[][], bias?: number[]) =>
  w[0]!.map((_, j) => x.reduce((s, xi, i) => s + xi * w[i]![j]!, bias?.[j] ?? 0));
const softmax = (x: number[]) => {
  const m = Math.max(...x);
  const e = x.map((v) => Math.exp(v - m));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / z);
};

describe('MAC', () => {
  it('forward pass: logits [B, 18]; each step attends over the real tokens and the two query people', () => {
    const model = new Mac(TINY, tokens, 1);
    const batch = batchOf(model);
    tf.tidy(() => {
      const { logits, read, control } = model.forward(model.inputs(batch));
      expect(logits.shape).toEqual([4, NUM_CLASSES]);
      expect(read).toHaveLength(3);
      expect(control).toHaveLength(3);
      const padding = tf.sub(1, tf.tensor2d(batch.mask, [4, batch.maxLength]));
      for (const r of read) {
        expect(r.shape).toEqual([4, batch.maxLength]);
        expect(r.mul(padding).sum().dataSync()[0]).toBeCloseTo(0);
        [...r.sum(1).dataSync()].forEach((s) => expect(s).toBeCloseTo(1, 5));
      }
      for (const c of control) {
        expect(c.shape).toEqual([4, 2]);
        [...c.sum(1).dataSync()].forEach((s) => expect(s).toBeCloseTo(1, 5));
      }
    });
    model.dispose();
  });

  it('answers any text: an empty story, a story without its query people', async () => {
    const model = new Mac(TINY, tokens, 1);
    for (const q of [
      question('', 'Ann', 'Bob', 'son'),
      question('[Zed] sang. Nobody else came!', 'Ann', 'Bob', 'son'),
    ]) {
      const [answer] = await textModel(model, 'mac', 'mac').answer([q]);
      expect(answer!.probs).toHaveLength(NUM_CLASSES);
      expect([...answer!.probs].every(Number.isFinite)).toBe(true);
    }
    model.dispose();
  });

  it("the read unit's factored score gives the attention of the paper's formula, token by token", () => {
    const model = new Mac({ ...TINY, steps: 1 }, tokens, 8);
    // Every weight random (the zero biases and starting states would hide a wrong term).
    [...model.variables.values()].forEach((v, i) => v.assign(tf.randomNormal(v.shape, 0, 0.5, 'float32', i)));
    const batch = batchOf(model, [QUESTIONS[0]!]);
    const L = batch.maxLength;
    const d = 2 * TINY.hidden;
    const [states, attention] = tf.tidy(() => {
      const x = model.inputs(batch);
      return [[...model.encoder.encode(x).dataSync()], [...model.forward(x).read[0]!.dataSync()]];
    });
    const k = Array.from({ length: L }, (_, h) => states.slice(h * d, (h + 1) * d));
    const mean = (q: Float32Array) => k[0]!.map((_, j) => k.reduce((s, kh, h) => s + q[h]! * kh[j]!, 0));
    const [a, b] = [mean(batch.queryA), mean(batch.queryB)];
    const bias = (name: string) => rows(model, `${name}/bias`)[0]!;
    // Control (step 1): c_0 and m_0 are the learned starting states.
    const q = affine([...a, ...b], rows(model, 'mac/question'), bias('mac/question')).map(Math.tanh);
    const qStep = affine(q, rows(model, 'mac/controlQuestion'), bias('mac/controlQuestion'));
    const cq = affine([...rows(model, 'mac/control0')[0]!, ...qStep], rows(model, 'mac/control'), bias('mac/control'));
    const wca = rows(model, 'mac/controlAttention')[0]!;
    const cv = softmax([a, b].map((w) => w.reduce((s, wj, j) => s + wca[j]! * cq[j]! * wj, 0)));
    const c = a.map((aj, j) => cv[0]! * aj + cv[1]! * b[j]!);
    // Read, as the paper writes it: I = (W_m m) ⊙ (W_k k_h); I' = W_I [I ; k_h]; ra = w_r · (c ⊙ I').
    const m = affine(rows(model, 'mac/memory0')[0]!, rows(model, 'mac/readMemory'), bias('mac/readMemory'));
    const wI = [...rows(model, 'mac/readInteraction'), ...rows(model, 'mac/readDirect')];
    const wr = rows(model, 'mac/readAttention')[0]!;
    const ra = k.map((kh) => {
      const kp = affine(kh, rows(model, 'mac/readKnowledge'), bias('mac/readKnowledge'));
      const I = kp.map((v, j) => v * m[j]!);
      const Ip = affine([...I, ...kh], wI);
      return Ip.reduce((s, v, j) => s + wr[j]! * c[j]! * v, 0);
    });
    softmax(ra).forEach((p, h) => expect(attention[h]).toBeCloseTo(p, 5));
    model.dispose();
  });

  it('a story answers the same alone (the fused one-story path) or padded in a batch', async () => {
    const model = new Mac(TINY, tokens, 2);
    const together = await model.predict(batchOf(model));
    for (const [i, q] of QUESTIONS.entries()) {
      const alone = await model.predict(batchOf(model, [q]));
      [...alone].forEach((p, c) => expect(p).toBeCloseTo(together[i * NUM_CLASSES + c]!, 5));
    }
    model.dispose();
  });

  it('weights are seeded: the same seed gives the same answers, another seed others', async () => {
    const [a, b, c] = [new Mac(TINY, tokens, 'x'), new Mac(TINY, tokens, 'x'), new Mac(TINY, tokens, 'y')];
    const pa = await a.predict(batchOf(a));
    expect(await b.predict(batchOf(b))).toEqual(pa);
    expect(await c.predict(batchOf(c))).not.toEqual(pa);
    [a, b, c].forEach((m) => m.dispose());
  });

  it('save → load gives the same answers; loadModel reads it; the same question always gets the same answer', async () => {
    const model = new Mac(TINY, tokens, 4);
    const { modelJson, weights } = await saveMac(model, 'mac-test');
    const copy = loadMac(JSON.parse(JSON.stringify(modelJson)), weights.slice(0));
    expect(copy.config).toEqual(TINY);
    expect(copy.tokens.vocabulary).toEqual(tokens.vocabulary);
    expect(await copy.predict(batchOf(copy))).toEqual(await model.predict(batchOf(model)));
    expect(() => loadMac({ ...modelJson, classes: ['son'] }, weights)).toThrow(/classes/);
    expect(() => loadMac({ ...modelJson, tokenizer: { kind: 'words', vocabulary: [] } }, weights)).toThrow(
      /MAC model.json: tokenizer/,
    );
    const loaded = loadModel(modelJson, weights.slice(0));
    expect([loaded.kind, loaded.name]).toEqual(['mac', 'mac-test']);
    const first = await loaded.answer(QUESTIONS);
    expect(await loaded.answer(QUESTIONS)).toEqual(first);
    expect(first.map((a) => a.probs.length)).toEqual([18, 18, 18, 18]);
    [model, copy, loaded].forEach((m) => m.dispose());
  });

  it('learns a small set of generated stories by heart (Adam, a few dozen steps)', async () => {
    const train = generatedQuestions(4);
    const model = new Mac({ ...TINY, dropout: 0, cellDropout: 0, wordDropout: 0 }, tokenizerOf(train), 3);
    const optimizer = tf.train.adam(0.05);
    const batch = batchOf(model, train);
    const rng = createRng(7);
    const first = trainStep(model, optimizer, batch, rng);
    let last = first;
    // Until every story is right and the loss is well down: a step's count is taken before its
    // update, and the first all-right step's update can still lose one.
    for (let i = 0; i < 150 && (last.correct < train.length || last.loss > first.loss / 20); i++) {
      last = trainStep(model, optimizer, batch, rng);
    }
    expect(last.loss).toBeLessThan(first.loss / 4);
    expect(await evaluate(model, train)).toEqual({ correct: train.length, rows: train.length });
    optimizer.dispose();
    model.dispose();
  });

  it('the paper-sized weights stay under 5 MB with a 3000-word vocabulary', async () => {
    const words = Array.from({ length: 3000 }, (_, i) => `w${i}x`).join(' ');
    const big = learnTokenizer([words, words], { maxMerges: 0 });
    expect(big.size).toBeGreaterThan(3000);
    const model = new Mac(MAC_PAPER, big, 5);
    const { weights } = await saveMac(model);
    expect(weights.byteLength).toBeLessThan(5_000_000);
    model.dispose();
  });

  it('predictions, training and evaluation leave no tensor behind (the one-story path keeps its fused weights until dispose)', async () => {
    const empty = tf.memory().numTensors;
    const model = new Mac(TINY, tokens, 6);
    const optimizer = tf.train.adam(0.01);
    trainStep(
      model,
      optimizer,
      model.batch(textItems(QUESTIONS), { wordDropout: 0.5, rng: createRng(1) }),
      createRng(1),
    );
    await model.predict(batchOf(model, [QUESTIONS[0]!]));
    const before = tf.memory().numTensors;
    for (let i = 0; i < 3; i++) {
      await model.predict(batchOf(model));
      await model.predict(batchOf(model, [QUESTIONS[i]!]));
    }
    expect((await evaluate(model, QUESTIONS, 3)).rows).toBe(4);
    expect(tf.memory().numTensors).toBe(before);
    optimizer.dispose();
    model.dispose();
    expect(tf.memory().numTensors).toBe(empty);
  });

  it('trains on the wasm backend (no gather gradient) and answers as on cpu', async () => {
    const model = new Mac(TINY, tokens, 7);
    const onCpu = await model.predict(batchOf(model));
    const dist = path.dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm'));
    await useBackend('wasm', dist + path.sep);
    try {
      const copy = loadMac(...(Object.values(await saveMac(model)) as Parameters<typeof loadMac>));
      const onWasm = await copy.predict(batchOf(copy));
      [...onWasm].forEach((p, i) => expect(p).toBeCloseTo(onCpu[i]!, 4));
      const aloneOnWasm = await copy.predict(batchOf(copy, [QUESTIONS[2]!]));
      [...aloneOnWasm].forEach((p, c) => expect(p).toBeCloseTo(onCpu[2 * NUM_CLASSES + c]!, 4));
      const optimizer = tf.train.adam(0.001);
      const step = trainStep(
        copy,
        optimizer,
        copy.batch(textItems(QUESTIONS), { wordDropout: 0.5, rng: createRng(1) }),
        createRng(1),
      );
      expect(Number.isFinite(step.loss)).toBe(true);
      optimizer.dispose();
      copy.dispose();
    } finally {
      await tf.setBackend('cpu');
      model.dispose();
    }
  });
});
