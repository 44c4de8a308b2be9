import * as tf from '@tensorflow/tfjs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../core/random/rng';
import { useBackend } from '../backend';
import { NUM_CLASSES } from '../encoding';
import { loadModel } from '../load';
import { evaluate, textItems, textModel, trainStep } from './textNet';
import type { ModelQuestion } from '../model';
import { loadRn, Rn, RN_PAPER, type RnConfig, saveRn } from './rn';
import { generatedQuestions, question, QUESTIONS, tokenizerOf } from './textModelFixtures';
import { learnTokenizer } from './tokens';

// Small enough for a unit test; the code paths are those of the paper-sized model.
const TINY: RnConfig = { ...RN_PAPER, embeddingDim: 8, hidden: 6, gHidden: 10, fHidden: [12, 8] };
const tokens = tokenizerOf(QUESTIONS);
const batchOf = (model: Rn, qs: readonly ModelQuestion[] = QUESTIONS) => model.batch(textItems(qs));

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('Relation Network', () => {
  it('cuts stories into sentences after . ! ?; rows keep the tokens and the query weights', () => {
    const model = new Rn(TINY, tokens, 1);
    const batch = batchOf(model);
    expect(batch.maxSentences).toBe(3);
    expect([...batch.objects]).toEqual([1, 1, 0, 1, 0, 0, 1, 1, 1, 1, 0, 0]);
    const { sentences } = batch;
    const Ls = sentences.maxLength;
    const rowSum = (q: Float32Array, b: number) => q.slice(b * 3 * Ls, (b + 1) * 3 * Ls).reduce((x, y) => x + y, 0);
    for (let b = 0; b < 4; b++) {
      expect(rowSum(sentences.queryA, b)).toBeCloseTo(1);
      expect(rowSum(sentences.queryB, b)).toBeCloseTo(1);
    }
    // The first story's two sentences, in order, are its tokens.
    const first = tokens.encode(QUESTIONS[0]!.story, textItems(QUESTIONS)[0]!.seed, QUESTIONS[0]!.queryNames);
    const cut = [0, 1].flatMap((s) =>
      [...sentences.ids.slice(s * Ls, (s + 1) * Ls)].filter((_, t) => sentences.mask[s * Ls + t] === 1),
    );
    expect(cut).toEqual(first.ids);
    expect(first.ids[first.ids.length - 1]).toBe(tokens.id('.'));
    model.dispose();
  });

  it('a story without an end mark is one sentence', () => {
    const model = new Rn(TINY, tokens, 1);
    const batch = model.batch(textItems([QUESTIONS[1]!]).map((it) => ({ ...it, story: it.story.replace('.', '') })));
    expect(batch.maxSentences).toBe(1);
    expect([...batch.objects]).toEqual([1]);
    model.dispose();
  });

  it('answers any text: an empty story, a story without its query people, one without an end mark', async () => {
    const model = new Rn(TINY, tokens, 1);
    const odd = [
      question('', 'Ann', 'Bob', 'son'),
      question('[Zed] sang. Nobody else came!', 'Ann', 'Bob', 'son'),
      question('[Ann] met her son [Bob]', 'Ann', 'Bob', 'son'),
    ];
    for (const q of odd) {
      const [answer] = await textModel(model, 'rn', 'rn').answer([q]);
      expect(answer!.probs).toHaveLength(NUM_CLASSES);
      expect([...answer!.probs].every(Number.isFinite)).toBe(true);
    }
    model.dispose();
  });

  it('forward pass: logits [B, 18], finite', () => {
    const model = new Rn(TINY, tokens, 1);
    tf.tidy(() => {
      const { logits } = model.forward(model.inputs(batchOf(model)));
      expect(logits.shape).toEqual([4, NUM_CLASSES]);
      expect([...logits.dataSync()].every(Number.isFinite)).toBe(true);
    });
    model.dispose();
  });

  it('a story answers the same alone or in a batch (empty sentence rows and padding change nothing)', async () => {
    for (const aggregate of ['sum', 'mean'] as const) {
      const model = new Rn({ ...TINY, aggregate }, tokens, 2);
      const together = await model.predict(batchOf(model));
      for (const [i, q] of QUESTIONS.entries()) {
        const alone = await model.predict(batchOf(model, [q]));
        [...alone].forEach((p, c) => expect(p).toBeCloseTo(together[i * NUM_CLASSES + c]!, 5));
      }
      model.dispose();
    }
  });

  it('weights are seeded: the same seed gives the same answers, another seed others', async () => {
    const [a, b, c] = [new Rn(TINY, tokens, 'x'), new Rn(TINY, tokens, 'x'), new Rn(TINY, tokens, 'y')];
    const pa = await a.predict(batchOf(a));
    expect(await b.predict(batchOf(b))).toEqual(pa);
    expect(await c.predict(batchOf(c))).not.toEqual(pa);
    [a, b, c].forEach((m) => m.dispose());
  });

  it('save → load gives the same answers; loadModel reads it; the same question always gets the same answer', async () => {
    const model = new Rn(TINY, tokens, 4);
    const { modelJson, weights } = await saveRn(model, 'rn-test');
    const copy = loadRn(JSON.parse(JSON.stringify(modelJson)), weights.slice(0));
    expect(copy.config).toEqual(TINY);
    expect(copy.tokens.vocabulary).toEqual(tokens.vocabulary);
    expect(await copy.predict(batchOf(copy))).toEqual(await model.predict(batchOf(model)));
    expect(() => loadRn({ ...modelJson, classes: ['son'] }, weights)).toThrow(/classes/);
    expect(() =>
      loadRn({ ...modelJson, tokenizer: { kind: 'pieces', version: 1, vocabulary: ['x'] } }, weights),
    ).toThrow(/RN model.json: tokenizer/);
    const loaded = loadModel(modelJson, weights.slice(0));
    expect([loaded.kind, loaded.name]).toEqual(['rn', 'rn-test']);
    const first = await loaded.answer(QUESTIONS);
    expect(await loaded.answer(QUESTIONS)).toEqual(first);
    expect(first.map((a) => a.probs.length)).toEqual([18, 18, 18, 18]);
    [model, copy, loaded].forEach((m) => m.dispose());
  });

  it('learns a small set of generated stories by heart (Adam, a few dozen steps)', async () => {
    const train = generatedQuestions(4);
    const model = new Rn({ ...TINY, dropout: 0, wordDropout: 0 }, tokenizerOf(train), 3);
    const optimizer = tf.train.adam(0.05);
    const batch = batchOf(model, train);
    const rng = createRng(7);
    const first = trainStep(model, optimizer, batch, rng);
    let last = first;
    for (let i = 0; i < 150 && last.correct < train.length; i++) last = trainStep(model, optimizer, batch, rng);
    expect(last.loss).toBeLessThan(first.loss / 4);
    expect(await evaluate(model, train)).toEqual({ correct: train.length, rows: train.length });
    optimizer.dispose();
    model.dispose();
  });

  it('the paper-sized weights stay under 5 MB with a 3000-word vocabulary', async () => {
    const words = Array.from({ length: 3000 }, (_, i) => `w${i}x`).join(' ');
    const big = learnTokenizer([words, words], { maxMerges: 0 });
    expect(big.size).toBeGreaterThan(3000);
    const model = new Rn(RN_PAPER, big, 5);
    const { weights } = await saveRn(model);
    expect(weights.byteLength).toBeLessThan(5_000_000);
    model.dispose();
  });

  it('predictions, training and evaluation leave no tensor behind (a one-sentence story keeps the fused weights until dispose)', async () => {
    const empty = tf.memory().numTensors;
    const model = new Rn(TINY, tokens, 6);
    const optimizer = tf.train.adam(0.01);
    await model.predict(batchOf(model, [QUESTIONS[1]!]));
    trainStep(
      model,
      optimizer,
      model.batch(textItems(QUESTIONS), { wordDropout: 0.5, rng: createRng(1) }),
      createRng(1),
    );
    const before = tf.memory().numTensors;
    for (let i = 0; i < 3; i++) {
      await model.predict(batchOf(model));
      await model.predict(batchOf(model, [QUESTIONS[i]!]));
      trainStep(model, optimizer, batchOf(model), createRng(i));
    }
    expect((await evaluate(model, QUESTIONS, 3)).rows).toBe(4);
    expect(tf.memory().numTensors).toBe(before);
    optimizer.dispose();
    model.dispose();
    expect(tf.memory().numTensors).toBe(empty);
  });

  it('the sentence cut does not move with word dropout (punctuation is never dropped)', () => {
    const model = new Rn(TINY, tokens, 1);
    const clean = batchOf(model);
    const dropped = model.batch(textItems(QUESTIONS), { wordDropout: 0.9, rng: createRng(3) });
    expect([...dropped.objects]).toEqual([...clean.objects]);
    expect(dropped.sentences.maxLength).toBe(clean.sentences.maxLength);
    expect([...dropped.sentences.mask]).toEqual([...clean.sentences.mask]);
    model.dispose();
  });

  it('trains on the wasm backend (no gather gradient) and answers as on cpu', async () => {
    const model = new Rn(TINY, tokens, 7);
    const onCpu = await model.predict(batchOf(model));
    const dist = path.dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm'));
    await useBackend('wasm', dist + path.sep);
    try {
      const copy = loadRn(...(Object.values(await saveRn(model)) as Parameters<typeof loadRn>));
      const onWasm = await copy.predict(batchOf(copy));
      [...onWasm].forEach((p, i) => expect(p).toBeCloseTo(onCpu[i]!, 4));
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
