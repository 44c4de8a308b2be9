/**
 * The graph models' trainer (GAT, relation composers, path composer). Batches are built when
 * their step runs and dropped after it, so memory holds one batch's dense arrays, not an epoch's
 * (a 10,000-row file trains in a phone's tab); the rng is drawn in the same order as when every
 * batch was built up front, so a seed gives the same weights as before.
 */
import * as tf from '@tensorflow/tfjs';
import { createRng } from '../../core/random/rng';
import { batchGraphs, type GraphBatch, NUM_EDGE_TYPES, type StoryGraph } from '../encoding';
import { GAT_PAPER } from '../graph/gatPaper';
import {
  evaluate,
  type GatConfig,
  type GatModelJson,
  GraphNet,
  isPairs,
  loadGat,
  type PairTargets,
  saveGat,
  trainStep,
} from '../graph/graphNet';
import { batchPairLabels, batchRounds, pairLabelsFromPuzzle } from '../graph/pairRounds';
import { GAT_PAIRS } from '../graph/pairStates';
import { PATH_COMPOSER } from '../graph/pathComposer';
import { GAT_IMPROVED } from '../graph/relationComposer';
import type { Trained, TrainContext } from './context';
import { runEpochs } from './epochs';
import { variablesKeeper } from './keepBest';

/** The graph models' configurations by model id (what each is: src/ml/modelKinds.ts). */
export const GAT_MODELS: Record<string, { config: GatConfig }> = {
  gat: { config: GAT_PAPER },
  'gat-improved': { config: GAT_IMPROVED },
  /** The first design of the relation composer (vector pair states); see src/ml/README.md. */
  'gat-pairs': { config: GAT_PAIRS },
  /** Ablation: `gat-improved` trained on the answer only, without the auxiliary pair loss. */
  'gat-improved-answer-only': { config: { ...GAT_IMPROVED, pairLoss: 0 } },
  'path-composer': { config: PATH_COMPOSER },
};

/** Batches of `size` graphs, each built only when asked for. */
function* lazyBatches(graphs: readonly StoryGraph[], size: number, inverseEdges: boolean): Generator<GraphBatch> {
  for (let i = 0; i < graphs.length; i += size) yield batchGraphs(graphs.slice(i, i + size), { inverseEdges });
}

export async function trainGat(ctx: TrainContext): Promise<Trained> {
  const { options, data } = ctx;
  const { config } = GAT_MODELS[options.model]!;
  const { seed, batchSize } = options;
  const train = data.train.map((e) => e.question.graph);
  const dev = data.dev.map((e) => e.question.graph);
  // A resumed run goes on from the folder's weights (Adam's moments start afresh).
  const model = ctx.resume
    ? loadGat(ctx.resume.modelJson as GatModelJson, ctx.resume.weights)
    : new GraphNet(config, `${seed}/init`);
  const optimizer = tf.train.adam(options.learningRate);
  const rng = createRng(seed, 'train');
  const t0 = performance.now();
  // The relation composers: each batch runs its longest a-to-b distance plus 0..trainExtraRounds
  // rounds, with every pair's relation after every round as auxiliary targets.
  const pairLoss = isPairs(config) && (config.pairLoss ?? 0) > 0;
  const { history, end, bestEpoch } = await runEpochs(
    options,
    { log: ctx.log, ...ctx.hooks },
    () => {
      if (pairLoss) {
        const order = rng.shuffle(train.map((_, i) => i));
        const members: number[][] = [];
        for (let i = 0; i < order.length; i += batchSize) members.push(order.slice(i, i + batchSize));
        const make = (m: readonly number[]) =>
          batchGraphs(
            m.map((j) => train[j]!),
            { inverseEdges: config.inverseEdges },
          );
        // Rounds are drawn now, in batch order (the batch is built to measure it, then dropped).
        const rounds = members.map((m) => batchRounds(make(m)) + rng.int((config.trainExtraRounds ?? 0) + 1));
        return members.map((m, i) => () => {
          const b = make(m);
          const targets: PairTargets = {
            rounds: rounds[i]!,
            labels: batchPairLabels(
              m.map((j) => pairLabelsFromPuzzle(data.train[j]!.puzzle, rounds[i]!)),
              b.maxNodes,
            ),
          };
          return { ...trainStep(model, optimizer, b, rng, 1, targets), size: b.size };
        });
      }
      const shuffled = rng.shuffle([...train]);
      const steps = [];
      for (let i = 0; i < shuffled.length; i += batchSize) {
        const part = shuffled.slice(i, i + batchSize);
        steps.push(() => {
          const b = batchGraphs(part, { inverseEdges: config.inverseEdges });
          return { ...trainStep(model, optimizer, b, rng, 1), size: b.size };
        });
      }
      return steps;
    },
    (epoch) => evaluate(model, lazyBatches(dev, 500, config.inverseEdges), `${seed}/dev/${epoch}`),
    ctx.resume?.history,
    options.keepBest ? variablesKeeper(model.variables) : undefined,
  );
  const { modelJson, weights } = await saveGat(model, options.model);
  optimizer.dispose();
  model.dispose();
  return {
    kind: 'gat',
    modelJson,
    weights,
    config,
    encoding: {
      module: 'src/ml/encoding.ts',
      graph: 'dense padded batches; edge type 0 self-loop, 1..20 relation words, 21..40 inverse edges',
      edgeTypes: NUM_EDGE_TYPES,
      inverseEdges: config.inverseEdges,
      ...(isPairs(config)
        ? {
            pairs:
              'states of ordered pairs (x, y) = "what y is to x", composed through a third person; rounds = the longest a-to-b distance of the batch',
          }
        : {}),
    },
    training: {
      optimizer: 'adam',
      gradientClipNorm: 1,
      ...(pairLoss
        ? {
            auxiliaryLoss: `weight ${config.pairLoss}: cross-entropy, after every round, on every ordered pair's relation in the training stories as the CLUTRR rule base composes it from the story's facts in that many rounds (src/ml/graph/pairRounds.ts pairLabelsFromPuzzle: one predicate → its word by gender; none → 'none'; several → not scored); test sets are scored on the answer only`,
          }
        : {}),
      seconds: Math.round((performance.now() - t0) / 1000),
      history,
      // --keep-best: the epoch whose weights these are.
      ...(bestEpoch !== undefined ? { keptEpoch: bestEpoch } : {}),
    },
    end,
  };
}
