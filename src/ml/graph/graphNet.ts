/**
 * The graph models' shared machinery, whatever the architecture (architecture.ts): `GraphNet`
 * holds one architecture's weights as tf.variables (seeded or loaded), answers and explains
 * batches; `trainStep` (cross-entropy, the rule-base pair loss when the config has one,
 * global-norm clipping), `evaluate`, `saveGat` / `loadGat` (model.json `clutrr-lab/gat` +
 * weights.bin; the format keeps its first model's name) and `gatAsModel` (the ClutrrModel of
 * model.ts). The architectures: gatPaper.ts (the paper's GAT, model `gat`), relationComposer.ts
 * (`gat-improved`, `gat-improved-answer-only`) and pairStates.ts (`gat-pairs`); what each model
 * is: modelKinds.ts.
 */
import * as tf from '@tensorflow/tfjs';
import { createRng, type Rng, type Seed } from '../../core/random/rng';
import { batchGraphs, CLASSES, type GraphBatch, NUM_CLASSES } from '../encoding';
import {
  type ForwardOptions,
  type GatConfig,
  type GatInputs,
  type GatOutputs,
  glorotValues,
  type GraphArchitecture,
} from './architecture';
import { NODES } from './gatPaper';
import type { ClutrrModel, ModelAnswer, ModelQuestion } from '../model';
import { PAIR_STATES } from './pairStates';
import { PATH_STATES } from './pathComposer';
import { CLASS_STATES } from './relationComposer';
import { applyClippedGradients, crossEntropy, type TrainStep } from '../training';
import { createVariables, loadVariables, type ModelArtifacts, type ModelJsonBase, saveVariables } from '../variables';

export type { ForwardOptions, GatConfig, GatInputs, GatOutputs } from './architecture';
export type { TrainStep } from '../training';

type ArchitectureName = NonNullable<GatConfig['architecture']>;

const ARCHITECTURES: Readonly<Record<ArchitectureName, GraphArchitecture>> = {
  nodes: NODES,
  pairs: PAIR_STATES,
  classes: CLASS_STATES,
  path: PATH_STATES,
};

/** The architecture a config names (absent: the paper's `nodes`); a clear error for any other name. */
export function architectureOf(c: GatConfig): GraphArchitecture {
  const name = c.architecture ?? 'nodes';
  if (!Object.hasOwn(ARCHITECTURES, name)) {
    throw new Error(
      `GAT config: unknown architecture ${JSON.stringify(name)} (expected ${Object.keys(ARCHITECTURES).join(', ')})`,
    );
  }
  return ARCHITECTURES[name];
}

/** Pair states composed through a third person (`pairs` or `classes`): the relation composers. */
export const isPairs = (c: GatConfig): boolean => c.architecture === 'pairs' || c.architecture === 'classes';

/**
 * A graph model: the weights of the architecture its config names (the paper's GAT or a relation
 * composer), seeded or loaded. Called `Gat` before the relation composers joined it.
 */
export class GraphNet {
  readonly variables: ReadonlyMap<string, tf.Variable>;
  readonly architecture: GraphArchitecture;

  constructor(
    readonly config: GatConfig,
    init: Seed | ReadonlyMap<string, tf.Tensor>,
  ) {
    const architecture = architectureOf(config);
    this.architecture = architecture;
    this.variables = createVariables('GAT', architecture.weightShapes(config), init, (name, shape, rng) =>
      (architecture.initialValues ?? glorotValues)(name, shape, rng),
    );
  }

  /**
   * Tensors for a batch: the paper's GAT draws its random identity vectors from `rng` (the same
   * rng state gives the same vectors, so predictions are reproducible).
   */
  inputs(batch: GraphBatch, rng: Rng): GatInputs {
    return this.architecture.inputs(this.config, batch, rng);
  }

  /** Logits [B, 18] and the architecture's attention (architecture.ts GatOutputs). */
  forward(x: GatInputs, options: ForwardOptions = {}): GatOutputs {
    return this.architecture.forward(this.config, (name) => this.variables.get(name)!, x, options);
  }

  /** Class probabilities [B * 18] for a batch (identities from `seed`); disposes everything. */
  async predict(batch: GraphBatch, seed: Seed = 0): Promise<Float32Array> {
    const rng = createRng(seed, 'gat-identities');
    const probs = tf.tidy(() => tf.softmax(this.forward(this.inputs(batch, rng)).logits));
    try {
      return (await probs.data()) as Float32Array;
    } finally {
      probs.dispose();
    }
  }

  /**
   * Probabilities [B * 18] and the attention maps as arrays: the paper's GAT per convolution the
   * last round's [B * N * N] (row i: the weight node i gave each j, summing to 1 over its
   * incoming edges and itself); the relation composers every round's [B * N * N * (N + 1)]
   * (pairRounds.ts pairFactAttention). For drawing on the graph's edges. Disposes everything.
   */
  async explain(batch: GraphBatch, seed: Seed = 0): Promise<{ probs: Float32Array; attention: Float32Array[] }> {
    const rng = createRng(seed, 'gat-identities');
    const outputs = tf.tidy(() => {
      const { logits, attention } = this.forward(this.inputs(batch, rng));
      return [tf.softmax(logits), ...attention];
    });
    try {
      const [probs, ...attention] = (await Promise.all(outputs.map((t) => t.data()))) as Float32Array[];
      return { probs: probs!, attention };
    } finally {
      outputs.forEach((t) => t.dispose());
    }
  }

  dispose(): void {
    for (const v of this.variables.values()) v.dispose();
  }
}

/** Mean cross-entropy over the rows whose label is ≥ 0 (-1: not scored); 0 when there are none. */
export function maskedCrossEntropy(logits: tf.Tensor2D, labels: Int32Array): tf.Scalar {
  return tf.tidy(() => {
    const classes = logits.shape[1];
    const scored = Float32Array.from(labels, (l) => (l >= 0 ? 1 : 0));
    const count = scored.reduce((a, b) => a + b, 0);
    const oneHot = tf.oneHot(
      tf.tensor1d(
        Int32Array.from(labels, (l) => Math.max(l, 0)),
        'int32',
      ),
      classes,
    );
    const logProbs = logits.sub(tf.logSumExp(logits, 1, true));
    const perRow = oneHot.mul(logProbs).sum(1).mul(tf.tensor1d(scored));
    return perRow.sum().div(Math.max(count, 1)).neg() as tf.Scalar;
  });
}

/** A relation composer's auxiliary targets for one batch: its rounds and each round's pair labels (batchPairLabels). */
export interface PairTargets {
  readonly rounds: number;
  readonly labels: readonly Int32Array[];
}

/**
 * One optimiser step on a batch: cross-entropy, gradients clipped to a global norm of `clip`
 * (the paper: 1.0), then the optimiser's update. Every intermediate tensor is disposed.
 */
export function trainStep(
  model: GraphNet,
  optimizer: tf.Optimizer,
  batch: GraphBatch,
  rng: Rng,
  clip = 1,
  auxiliary?: PairTargets,
): TrainStep {
  const vars = [...model.variables.values()];
  let correct = 0;
  const pairWeight = model.config.pairLoss ?? 0;
  const loss = tf.tidy(() => {
    let x = model.inputs(batch, rng);
    if (auxiliary && x.rounds !== undefined) x = { ...x, rounds: auxiliary.rounds };
    const { value, grads } = tf.variableGrads(() => {
      const { logits, pairLogits } = model.forward(x, { training: true, rng });
      const predicted = logits.argMax(1).dataSync();
      correct = batch.labels.reduce((n, l, i) => n + (predicted[i] === l ? 1 : 0), 0);
      const answer = crossEntropy(logits, batch.labels);
      if (!auxiliary || !pairLogits || pairWeight === 0) return answer;
      const perRound = pairLogits.map((l, r) => maskedCrossEntropy(l, auxiliary.labels[r]!));
      return answer.add(tf.addN(perRound).mul(pairWeight / perRound.length)) as tf.Scalar;
    }, vars);
    applyClippedGradients(optimizer, grads, clip);
    return value.dataSync()[0]!;
  });
  return { loss, correct };
}

/** Accuracy of a model on batches: correct answers over labelled rows (identities seeded). */
export async function evaluate(
  model: GraphNet,
  batches: Iterable<GraphBatch>,
  seed: Seed = 0,
): Promise<{ correct: number; rows: number }> {
  let correct = 0;
  let rows = 0;
  let i = 0;
  for (const batch of batches) {
    const probs = await model.predict(batch, `${seed}/${i++}`);
    for (let b = 0; b < batch.size; b++) {
      if (batch.labels[b]! < 0) continue;
      rows++;
      const row = probs.subarray(b * NUM_CLASSES, (b + 1) * NUM_CLASSES);
      let best = 0;
      for (let c = 1; c < NUM_CLASSES; c++) if (row[c]! > row[best]!) best = c;
      if (best === batch.labels[b]) correct++;
    }
  }
  return { correct, rows };
}

// ---------------------------------------------------------------------------------------------
// Saving and loading: public/models/<model>/<version>/{model.json, weights.bin, metadata.json}

export const GAT_FORMAT = 'clutrr-lab/gat';

/** model.json: the architecture and the weights manifest (tfjs's layout, so tools can read it). */
export interface GatModelJson extends ModelJsonBase {
  readonly format: typeof GAT_FORMAT;
  readonly config: GatConfig;
}

export type GatArtifacts = ModelArtifacts<GatModelJson>;

/** The model as model.json and weights.bin contents. */
export async function saveGat(model: GraphNet, name = 'gat'): Promise<GatArtifacts> {
  return saveVariables(model.variables, {
    format: GAT_FORMAT,
    formatVersion: 1,
    name,
    config: model.config,
    classes: [...CLASSES],
  });
}

/** A model from model.json and weights.bin contents; refuses another format or class list. */
export function loadGat(modelJson: GatModelJson, weights: ArrayBuffer): GraphNet {
  return loadVariables('GAT', GAT_FORMAT, CLASSES, modelJson, weights, (t) => new GraphNet(modelJson.config, t));
}

// ---------------------------------------------------------------------------------------------
// As a ClutrrModel (model.ts)

/** A loaded graph model as a ClutrrModel: identities seeded per question position, batches as large as its architecture allows. */
export function gatAsModel(model: GraphNet, name: string): ClutrrModel {
  const { architecture, config } = model;
  return {
    kind: 'gat',
    name,
    async answer(questions: readonly ModelQuestion[]): Promise<ModelAnswer[]> {
      if (questions.length === 0) return [];
      const graphs = questions.map((q) => q.graph);
      const chunk = architecture.chunk(config, graphs);
      const answers: ModelAnswer[] = [];
      for (let start = 0; start < graphs.length; start += chunk) {
        const part = graphs.slice(start, start + chunk);
        const batch = batchGraphs(part, { inverseEdges: config.inverseEdges });
        const { probs, attention } = await model.explain(batch);
        part.forEach((g, b) =>
          answers.push({
            probs: probs.slice(b * NUM_CLASSES, (b + 1) * NUM_CLASSES),
            factAttention: architecture.factAttention(config, g, attention, batch.maxNodes, b),
          }),
        );
      }
      return answers;
    },
    dispose: () => model.dispose(),
  };
}
