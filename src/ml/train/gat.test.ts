import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../core/random/rng';
import { batchGraphs, type GraphBatch } from '../encoding';
import { GraphNet, isPairs, type PairTargets, saveGat, trainStep } from '../graph/graphNet';
import { batchPairLabels, batchRounds, pairLabelsFromPuzzle } from '../graph/pairRounds';
import { csvExampleReader, filesTrainData } from './csvFiles';
import { GAT_MODELS, trainGat } from './gat';
import { csvText } from './testFiles';

beforeAll(async () => {
  tf.env().set('PROD', true);
  await tf.setBackend('cpu');
});

/**
 * The trainer as it was before batches were built lazily: every batch of an epoch (and its pair
 * targets) made up front. The lazy trainer must give the very same weights for a seed.
 */
async function eagerWeights(model: string, train: ReturnType<typeof filesTrainData>['train'], batchSize: number) {
  const { config } = GAT_MODELS[model]!;
  const net = new GraphNet(config, '1/init');
  const optimizer = tf.train.adam(0.001);
  const rng = createRng('1', 'train');
  const graphs = train.map((e) => e.question.graph);
  const all = (gs: typeof graphs) => {
    const out: GraphBatch[] = [];
    for (let i = 0; i < gs.length; i += batchSize)
      out.push(batchGraphs(gs.slice(i, i + batchSize), { inverseEdges: config.inverseEdges }));
    return out;
  };
  const pairLoss = isPairs(config) && (config.pairLoss ?? 0) > 0;
  let batches: GraphBatch[];
  let targets: (PairTargets | undefined)[] = [];
  if (pairLoss) {
    const order = rng.shuffle(graphs.map((_, i) => i));
    batches = all(order.map((i) => graphs[i]!));
    targets = batches.map((b, i) => {
      const rounds = batchRounds(b) + rng.int((config.trainExtraRounds ?? 0) + 1);
      const members = order.slice(i * batchSize, i * batchSize + b.size);
      return {
        rounds,
        labels: batchPairLabels(
          members.map((j) => pairLabelsFromPuzzle(train[j]!.puzzle, rounds)),
          b.maxNodes,
        ),
      };
    });
  } else batches = all(rng.shuffle([...graphs]));
  batches.forEach((b, i) => trainStep(net, optimizer, b, rng, 1, targets[i]));
  const { weights } = await saveGat(net, model);
  optimizer.dispose();
  net.dispose();
  return new Uint8Array(weights);
}

describe('trainGat', () => {
  const reader = csvExampleReader('t.csv');
  reader.push(csvText('lazy', [2, 3], 12));
  const { train, dev } = filesTrainData([reader.end('x')], '1');

  for (const model of ['gat', 'gat-improved']) {
    it(`${model}: batches built when their step runs give the weights of batches built up front`, async () => {
      const settings = { model, seed: '1', epochs: 1, batchSize: 7, learningRate: 0.001 };
      const lazy = await trainGat({ options: settings, data: { train, dev }, log: () => {} });
      expect(new Uint8Array(lazy.weights)).toEqual(await eagerWeights(model, train, 7));
    });
  }
});
