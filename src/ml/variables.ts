/**
 * A model's weights as tfjs variables, made one way for every model: from a seed (each weight's
 * initial values drawn by the model's own rule) or from loaded tensors (checked by name and
 * shape). tfjs variable names are global, so each instance gets its own prefix.
 */
import * as tf from '@tensorflow/tfjs';
import { createRng, type Rng, type Seed } from '../core/random/rng';

const instances = new Map<string, number>();

/**
 * `shapes`: weight names and shapes in saving order. `init`: a seed (values from
 * `initialValues`, with an rng labelled `<model>-init`) or the loaded tensors (not disposed here).
 * `model` names the model in messages and variable names (`GAT`, `LSTM`).
 */
export function createVariables(
  model: string,
  shapes: readonly (readonly [string, number[]])[],
  init: Seed | ReadonlyMap<string, tf.Tensor>,
  initialValues: (name: string, shape: number[], rng: Rng) => Float32Array,
): Map<string, tf.Variable> {
  const tag = model.toLowerCase();
  const n = instances.get(tag) ?? 0;
  instances.set(tag, n + 1);
  const prefix = `${tag}${n}/`;
  const rng = typeof init === 'object' ? undefined : createRng(init, `${tag}-init`);
  return new Map(
    shapes.map(([name, shape]) => {
      let value: tf.Tensor;
      if (rng) value = tf.tensor(initialValues(name, shape, rng), shape);
      else {
        const given = (init as ReadonlyMap<string, tf.Tensor>).get(name);
        if (!given) throw new Error(`${model} weights: ${name} missing`);
        if (given.shape.join() !== shape.join()) {
          throw new Error(`${model} weights: ${name} has shape [${given.shape}], expected [${shape}]`);
        }
        value = given;
      }
      const v = tf.variable(value, true, prefix + name);
      if (rng) value.dispose();
      return [name, v];
    }),
  );
}

/** The parts every model.json has (tfjs's weights manifest layout, so tools can read it). */
export interface ModelJsonBase {
  readonly format: string;
  readonly formatVersion: 1;
  readonly name?: string;
  readonly classes: readonly string[];
  readonly weightsManifest: { paths: string[]; weights: tf.io.WeightsManifestEntry[] }[];
}

/** A model's model.json and weights.bin contents. */
export interface ModelArtifacts<J extends ModelJsonBase> {
  readonly modelJson: J;
  readonly weights: ArrayBuffer;
}

/** model.json (`header` + the weights manifest) and weights.bin contents of a model's variables. */
export async function saveVariables<H extends Omit<ModelJsonBase, 'weightsManifest'>>(
  variables: ReadonlyMap<string, tf.Variable>,
  header: H,
): Promise<{ modelJson: H & Pick<ModelJsonBase, 'weightsManifest'>; weights: ArrayBuffer }> {
  const { data, specs } = await tf.io.encodeWeights(Object.fromEntries(variables));
  return { modelJson: { ...header, weightsManifest: [{ paths: ['weights.bin'], weights: specs }] }, weights: data };
}

/**
 * Builds a model from model.json and weights.bin contents: refuses another format or class list
 * (naming `model`), hands `build` the decoded tensors by name, and disposes them afterwards.
 */
export function loadVariables<T>(
  model: string,
  format: string,
  classes: readonly string[],
  modelJson: ModelJsonBase,
  weights: ArrayBuffer,
  build: (tensors: ReadonlyMap<string, tf.Tensor>) => T,
): T {
  if (modelJson.format !== format) throw new Error(`not a ${model} model.json (format ${String(modelJson.format)})`);
  if (modelJson.classes.join() !== classes.join()) throw new Error('model.json: the classes differ from encoding.ts');
  const tensors = tf.io.decodeWeights(
    weights,
    modelJson.weightsManifest.flatMap((g) => g.weights),
  );
  try {
    return build(new Map(Object.entries(tensors)));
  } finally {
    for (const t of Object.values(tensors)) t.dispose();
  }
}
