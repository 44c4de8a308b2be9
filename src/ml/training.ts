/**
 * What training shares across the graph and text models: the answer loss and the clipped
 * optimiser update, so that both families learn by the same rule.
 */
import * as tf from '@tensorflow/tfjs';
import { NUM_CLASSES } from './encoding';

/** What one optimiser step reports. */
export interface TrainStep {
  readonly loss: number;
  /** Correct answers in the batch (training mode: with dropout). */
  readonly correct: number;
}

/** Mean softmax cross-entropy of logits against class indices (written out: no logSoftmax kernel on wasm). */
export function crossEntropy(logits: tf.Tensor2D, labels: Int32Array): tf.Scalar {
  return tf.tidy(() => {
    const oneHot = tf.oneHot(tf.tensor1d(labels, 'int32'), NUM_CLASSES);
    const logProbs = logits.sub(tf.logSumExp(logits, 1, true));
    return oneHot.mul(logProbs).sum(1).mean().neg() as tf.Scalar;
  });
}

/**
 * The optimiser's update with `grads` scaled down to a global norm of at most `clip` (the paper:
 * 1.0). Run inside the caller's tf.tidy, which disposes the scaled gradients.
 */
export function applyClippedGradients(optimizer: tf.Optimizer, grads: tf.NamedTensorMap, clip: number): void {
  const norm = tf.sqrt(tf.addN(Object.values(grads).map((g) => g.square().sum())));
  const scale = tf.div(clip, tf.maximum(norm, clip));
  optimizer.applyGradients(Object.fromEntries(Object.entries(grads).map(([n, g]) => [n, g.mul(scale)])));
}
