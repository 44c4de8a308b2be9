/** `npm run train -- --model gat|gat-improved`: the GAT trainer (see trainer.ts). */
import * as tf from '@tensorflow/tfjs';
import { createRng } from '../../src/core/random/rng';
import { batchGraphs, type GraphBatch, NUM_EDGE_TYPES, type StoryGraph } from '../../src/ml/encoding';
import {
  evaluate,
  GraphNet,
  type GatConfig,
  type GatModelJson,
  loadGat,
  isPairs,
  type PairTargets,
  saveGat,
  trainStep,
} from '../../src/ml/graph/graphNet';
import { GAT_PAPER } from '../../src/ml/graph/gatPaper';
import { batchPairLabels, batchRounds, pairLabelsFromPuzzle } from '../../src/ml/graph/pairRounds';
import { GAT_PAIRS } from '../../src/ml/graph/pairStates';
import { PATH_COMPOSER } from '../../src/ml/graph/pathComposer';
import { GAT_IMPROVED } from '../../src/ml/graph/relationComposer';
import { runEpochs, type Trained, type TrainContext } from './trainer';

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

function batches(graphs: readonly StoryGraph[], size: number, inverseEdges: boolean): GraphBatch[] {
  const out: GraphBatch[] = [];
  for (let i = 0; i < graphs.length; i += size) out.push(batchGraphs(graphs.slice(i, i + size), { inverseEdges }));
  return out;
}

export async function trainGat(ctx: TrainContext): Promise<Trained> {
  const { options, data } = ctx;
  const { config } = GAT_MODELS[options.model]!;
  const { seed } = options;
  const train = data.train.map((e) => e.question.graph);
  const dev = data.dev.map((e) => e.question.graph);
  // A resumed run goes on from the folder's weights (Adam's moments start afresh).
  const model = ctx.resume
    ? loadGat(ctx.resume.modelJson as GatModelJson, ctx.resume.weights)
    : new GraphNet(config, `${seed}/init`);
  const optimizer = tf.train.adam(options.learningRate);
  const rng = createRng(seed, 'train');
  const t0 = performance.now();
  // The improved GAT: each batch runs its longest a-to-b distance plus 0..trainExtraRounds
  // rounds, with every pair's relation after every round as auxiliary targets (see gat.ts).
  const pairLoss = isPairs(config) && (config.pairLoss ?? 0) > 0;
  const history = await runEpochs(
    ctx,
    () => {
      let epochBatches: GraphBatch[];
      let epochTargets: (PairTargets | undefined)[] = [];
      if (pairLoss) {
        const order = rng.shuffle(train.map((_, i) => i));
        epochBatches = batches(
          order.map((i) => train[i]!),
          options.batchSize,
          config.inverseEdges,
        );
        epochTargets = epochBatches.map((b, i) => {
          const rounds = batchRounds(b) + rng.int((config.trainExtraRounds ?? 0) + 1);
          const members = order.slice(i * options.batchSize, i * options.batchSize + b.size);
          const labels = batchPairLabels(
            members.map((j) => pairLabelsFromPuzzle(data.train[j]!.puzzle, rounds)),
            b.maxNodes,
          );
          return { rounds, labels };
        });
      } else epochBatches = batches(rng.shuffle([...train]), options.batchSize, config.inverseEdges);
      return epochBatches.map((b, i) => () => ({
        ...trainStep(model, optimizer, b, rng, 1, epochTargets[i]),
        size: b.size,
      }));
    },
    (epoch) => evaluate(model, batches(dev, 500, config.inverseEdges), `${seed}/dev/${epoch}`),
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
    },
  };
}
