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
