import * as tf from '@tensorflow/tfjs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../core/random/rng';
import { useBackend } from '../backend';
import { learnTokenizer } from './tokens';
import { classIndex, NUM_CLASSES, type StoryGraph } from '../encoding';
import { loadModel } from '../load';
import { Lstm, LSTM_MEAN, LSTM_PAPER, type LstmConfig, loadLstm, saveLstm } from './lstm';
import { evaluate, textItems, trainStep, trainStepInParts } from './textNet';
import type { ModelQuestion } from '../model';

// Small enough for a unit test; the shapes and code paths are those of the real model.
const TINY: LstmConfig = { ...LSTM_PAPER, embeddingDim: 8, hidden: 6, attentionDim: 5, decoderHidden: 12 };

const question = (story: string, a: string, b: string, answer: string): ModelQuestion => ({
  graph: { label: classIndex(answer) } as StoryGraph,
  story,
  queryNames: [a, b],
});
const questions = [
  question('[Ann] is the mother of [Bob]. [Bob] has a son, [Carl].', 'Ann', 'Carl', 'grandson'),
  question('[Dora] went fishing with her brother [Ed].', 'Dora', 'Ed', 'brother'),
  question('[Finn] and his sister [Gail] baked a cake. [Gail] has a daughter, [Hope].', 'Finn', 'Hope', 'niece'),
  question('[Ivy] is the daughter of [Jack].', 'Jack', 'Ivy', 'daughter'),
];
const vocabulary = learnTokenizer(questions.map((q) => q.story));
const batchOf = (model: Lstm, qs = questions) => model.batch(textItems(qs));

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('BiLSTM', () => {
  it('forward pass: logits [B, 18]; attention over the real tokens sums to 1', () => {
    const model = new Lstm(TINY, vocabulary, 1);
    const batch = batchOf(model);
    tf.tidy(() => {
      const { logits, attention } = model.forward(model.inputs(batch));
      expect(logits.shape).toEqual([4, NUM_CLASSES]);
      expect(attention!.shape).toEqual([4, batch.maxLength]);
      const onPadding = attention!.mul(tf.sub(1, tf.tensor2d(batch.mask, [4, batch.maxLength]))).sum();
      expect(onPadding.dataSync()[0]).toBeCloseTo(0);
      expect([...attention!.sum(1).dataSync()].map((x) => x.toFixed(4))).toEqual([
        '1.0000',
        '1.0000',
        '1.0000',
        '1.0000',
      ]);
    });
    const mean = new Lstm({ ...TINY, pooling: 'mean' }, vocabulary, 1);
    tf.tidy(() => {
      expect(mean.forward(mean.inputs(batch)).attention).toBeUndefined();
    });
    model.dispose();
    mean.dispose();
  });

  it('a story answers the same alone (the fused one-story path) or padded in a batch (padding never changes a state)', async () => {
    const model = new Lstm(TINY, vocabulary, 2);
    const together = await model.predict(batchOf(model));
    for (const [i, q] of questions.entries()) {
      const alone = await model.predict(batchOf(model, [q]));
      [...alone].forEach((p, c) => expect(p).toBeCloseTo(together[i * NUM_CLASSES + c]!, 5));
    }
    model.dispose();
  });

  it('the one-story path follows its weights after an optimizer step', async () => {
    const model = new Lstm({ ...TINY, dropout: 0 }, vocabulary, 9);
    await model.predict(batchOf(model, [questions[0]!]));
    const optimizer = tf.train.adam(0.05);
    trainStep(model, optimizer, batchOf(model), createRng(2));
    optimizer.dispose();
    const together = await model.predict(batchOf(model));
    const alone = await model.predict(batchOf(model, [questions[0]!]));
    [...alone].forEach((p, c) => expect(p).toBeCloseTo(together[c]!, 5));
    model.dispose();
  });

  it('a few Adam steps on a tiny fixed batch lower the loss', () => {
    const model = new Lstm({ ...TINY, dropout: 0, wordDropout: 0 }, vocabulary, 3);
    const optimizer = tf.train.adam(0.01);
    const batch = batchOf(model);
    const losses = Array.from({ length: 10 }, () => trainStep(model, optimizer, batch, createRng(7)).loss);
    expect(losses.at(-1)!).toBeLessThan(losses[0]! - 0.1);
    optimizer.dispose();
    model.dispose();
  });

  it('save → load gives the same answers; the same question always gets the same answer', async () => {
    const model = new Lstm(LSTM_MEAN, vocabulary, 4);
    const { modelJson, weights } = await saveLstm(model, 'lstm-test');
    const copy = loadLstm(JSON.parse(JSON.stringify(modelJson)), weights.slice(0));
    expect(copy.config).toEqual(LSTM_MEAN);
    expect(copy.tokens.vocabulary).toEqual(vocabulary.vocabulary);
    expect(modelJson.tokenizer).toEqual(vocabulary.toJson());
    expect(await copy.predict(batchOf(copy))).toEqual(await model.predict(batchOf(model)));
    expect(() => loadLstm({ ...modelJson, classes: ['son'] }, weights)).toThrow(/classes/);
    const loaded = loadModel(modelJson, weights.slice(0));
    expect([loaded.kind, loaded.name]).toEqual(['lstm', 'lstm-test']);
    const first = await loaded.answer(questions);
    expect(await loaded.answer(questions)).toEqual(first);
    expect(first.map((a) => a.probs.length)).toEqual([18, 18, 18, 18]);
    model.dispose();
    copy.dispose();
    loaded.dispose();
  });

  it('the paper-sized weights stay under 5 MB with a 3000-word vocabulary', async () => {
    const words = Array.from({ length: 3000 }, (_, i) => `w${i}`.replace(/\d/g, (d) => 'abcdefghij'[+d]!));
    const tokens = learnTokenizer([words.join(' ')], { minWordCount: 1 });
    expect(tokens.size).toBeGreaterThan(3000);
    const model = new Lstm(LSTM_PAPER, tokens, 5);
    const { weights } = await saveLstm(model);
    expect(weights.byteLength).toBeLessThan(5_000_000);
    model.dispose();
  });

  it('predictions and evaluation leave no tensor behind (the one-story path keeps its fused weights until dispose)', async () => {
    const empty = tf.memory().numTensors;
    const model = new Lstm(TINY, vocabulary, 6);
    await model.predict(batchOf(model));
    await model.predict(batchOf(model, [questions[0]!]));
    const before = tf.memory().numTensors;
    for (let i = 0; i < 5; i++) {
      await model.predict(batchOf(model));
      await model.predict(batchOf(model, [questions[i % 4]!]));
    }
    const r = await evaluate(model, questions, 3);
    expect(r.rows).toBe(4);
    expect(tf.memory().numTensors).toBe(before);
    model.dispose();
    expect(tf.memory().numTensors).toBe(empty);
  });

  it('trains on the wasm backend (no gather gradient) and answers as on cpu', async () => {
    const model = new Lstm(TINY, vocabulary, 7);
    const onCpu = await model.predict(batchOf(model));
    const dist = path.dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm'));
    await useBackend('wasm', dist + path.sep); // with the Unpack replacement (backend.ts)
    try {
      const saved = Object.values(await saveLstm(model)) as Parameters<typeof loadLstm>;
      const empty = tf.memory().numTensors;
      const copy = loadLstm(...saved);
      const onWasm = await copy.predict(batchOf(copy));
      [...onWasm].forEach((p, i) => expect(p).toBeCloseTo(onCpu[i]!, 4));
      // One story at a time: the wasm path (its own recurrence over the backend's kernels).
      for (const [i, q] of questions.entries()) {
        const aloneOnWasm = await copy.predict(batchOf(copy, [q]));
        [...aloneOnWasm].forEach((p, c) => expect(p).toBeCloseTo(onCpu[i * NUM_CLASSES + c]!, 4));
      }
      copy.dispose();
      expect(tf.memory().numTensors).toBe(empty);
      const again = loadLstm(...saved);
      expect(await again.predict(batchOf(again, [questions[1]!]))).toEqual(
        await again.predict(batchOf(again, [questions[1]!])),
      );
      again.dispose();
      const optimizer = tf.train.adam(0.001);
      const before = tf.memory().numTensors;
      const trained = loadLstm(...saved);
      const first = await trained.predict(batchOf(trained, [questions[3]!]));
      const step = trainStep(
        trained,
        optimizer,
        trained.batch(textItems(questions), { wordDropout: 0.5, rng: createRng(1) }),
        createRng(1),
      );
      expect(Number.isFinite(step.loss)).toBe(true);
      // After a step the one-story path follows the new weights (its cached products are made again).
      const batched = await trained.predict(batchOf(trained));
      const alone = await trained.predict(batchOf(trained, [questions[3]!]));
      [...alone].forEach((p, c) => expect(p).toBeCloseTo(batched[3 * NUM_CLASSES + c]!, 4));
      expect(alone).not.toEqual(first);
      optimizer.dispose();
      trained.dispose();
      expect(tf.memory().numTensors).toBeLessThanOrEqual(before);
    } finally {
      await tf.setBackend('cpu');
      model.dispose();
    }
  });

  it('a step in parts (gradients summed by share) is the step of the whole batch, and leaves no tensor behind', () => {
    const still: LstmConfig = { ...TINY, dropout: 0 };
    const whole = new Lstm(still, vocabulary, 3);
    const parted = new Lstm(still, vocabulary, 3);
    const sgd = tf.train.sgd(0.5);
    const a = trainStep(whole, sgd, batchOf(whole), createRng(1), 1e9);
    const before = tf.memory().numTensors;
    const parts = [batchOf(parted, questions.slice(0, 1)), batchOf(parted, questions.slice(1))];
    const b = trainStepInParts(parted, sgd, parts, createRng(1), 1e9);
    expect(tf.memory().numTensors).toBe(before);
    expect(b.correct).toBe(a.correct);
    expect(b.loss).toBeCloseTo(a.loss, 5);
    let moved = 0;
    for (const [name, w] of whole.variables) {
      const x = w.dataSync();
      const y = parted.variables.get(name)!.dataSync();
      x.forEach((v, i) => expect(y[i]).toBeCloseTo(v, 5));
      moved += Math.abs(x[0]! - y[0]!) < 1e-6 ? 1 : 0;
    }
    expect(moved).toBe(whole.variables.size);
    // And the step did move the weights (against a model that took none).
    const untouched = new Lstm(still, vocabulary, 3);
    const changed = [...whole.variables].filter(([name, w]) =>
      w.dataSync().some((v, i) => Math.abs(v - untouched.variables.get(name)!.dataSync()[i]!) > 1e-7),
    ).length;
    expect(changed).toBeGreaterThan(whole.variables.size / 2);
    for (const m of [whole, parted, untouched]) m.dispose();
    sgd.dispose();
  });
});
