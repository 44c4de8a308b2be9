/** `npm run train -- --model lstm`: the BiLSTM trainer (see trainer.ts). */
import * as tf from '@tensorflow/tfjs';
import { createRng, type Rng } from '../../src/core/random/rng';
import { anonymise, buildVocabulary, MAX_ENTITIES, type TextItem } from '../../src/ml/encoding';
import { evaluate, Lstm, LSTM_PAPER, type LstmConfig, saveLstm, trainStep } from '../../src/ml/lstm';
import type { Example } from './data';
import { runEpochs, type Trained, type TrainContext } from './trainer';

export const LSTM_MODELS: Record<string, { config: LstmConfig; label: string }> = {
  lstm: { config: LSTM_PAPER, label: 'BiLSTM-attention (paper)' },
};

/** Words seen fewer times than this in the training stories are `<unk>`. */
const MIN_WORD_COUNT = 2;

/**
 * One epoch's batches: every story gets a fresh anonymisation seed; stories are sorted by length
 * within windows of 20 batches (little padding, yet mixed), and the batches shuffled.
 */
function epochBatches(train: readonly Example[], size: number, epoch: number, seed: string, rng: Rng): TextItem[][] {
  const items: TextItem[] = rng.shuffle([...train]).map((e, i) => ({
    story: e.story,
    queryNames: e.question.queryNames,
    label: e.question.graph.label,
    seed: `${seed}/anonymise/${epoch}/${i}`,
  }));
  const window = size * 20;
  const batches: TextItem[][] = [];
  for (let w = 0; w < items.length; w += window) {
    const part = items.slice(w, w + window).sort((p, q) => p.story.length - q.story.length);
    for (let i = 0; i < part.length; i += size) batches.push(part.slice(i, i + size));
  }
  return rng.shuffle(batches);
}

export async function trainLstm(ctx: TrainContext): Promise<Trained> {
  const { options, data, log } = ctx;
  const { config, label } = LSTM_MODELS[options.model]!;
  const { seed } = options;
  // The vocabulary of the training stories only: test stories' unseen words are <unk>.
  const vocabulary = buildVocabulary(
    data.train.map((e) => anonymise(e.story, 0).tokens),
    MIN_WORD_COUNT,
  );
  log(`  vocabulary: ${vocabulary.length} tokens (${MAX_ENTITIES} entity tokens, words seen ≥ ${MIN_WORD_COUNT}×)\n`);
  const dev = [2, 3].flatMap((k) => data.tests.get(k)!.map((e) => e.question));
  const model = new Lstm(config, vocabulary, `${seed}/init`);
  const optimizer = tf.train.adam(options.learningRate);
  const rng = createRng(seed, 'train');
  const t0 = performance.now();
  const history = await runEpochs(
    ctx,
    (epoch) =>
      epochBatches(data.train, options.batchSize, epoch, seed, rng).map((items) => () => {
        const batch = model.batch(items, { wordDropout: config.wordDropout, rng });
        return { ...trainStep(model, optimizer, batch, rng), size: batch.size };
      }),
    () => evaluate(model, dev),
  );

  const { modelJson, weights } = await saveLstm(model, options.model);
  optimizer.dispose();
  model.dispose();
  return {
    kind: 'lstm',
    label,
    modelJson,
    weights,
    config,
    encoding: {
      module: 'src/ml/encoding.ts',
      text: 'anonymise: [Name] → @ent<k>, a fresh seeded assignment per story (per epoch in training; seeded by the question at inference); lower-cased word and punctuation tokens',
      vocabulary: vocabulary.length,
      entityTokens: MAX_ENTITIES,
      minWordCount: MIN_WORD_COUNT,
    },
    training: {
      optimizer: 'adam',
      gradientClipNorm: 1,
      batches: 'sorted by length within windows of 20 batches, shuffled',
      seconds: Math.round((performance.now() - t0) / 1000),
      history,
    },
  };
}
