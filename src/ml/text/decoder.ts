/**
 * The classifier MLP at the end of the BiLSTM and the MAC network: features → hidden (ReLU) →
 * the 18 class logits, weights `decoder/*`. One definition, so both read their saved weights the
 * same way.
 */
import * as tf from '@tensorflow/tfjs';
import { NUM_CLASSES } from '../encoding';
import { matMul } from './encoder';

/** The decoder's weight names and shapes, in saving order, for `inDim` features. */
export function decoderShapes(inDim: number, hidden: number): [string, number[]][] {
  return [
    ['decoder/hidden', [inDim, hidden]],
    ['decoder/hiddenBias', [hidden]],
    ['decoder/out', [hidden, NUM_CLASSES]],
    ['decoder/outBias', [NUM_CLASSES]],
  ];
}

/** Logits [B, 18] of features [B, inDim]; `w` looks a weight up by name. */
export function decode(features: tf.Tensor2D, w: (name: string) => tf.Variable): tf.Tensor2D {
  const hidden = tf.relu(tf.add(matMul(features, w('decoder/hidden')), w('decoder/hiddenBias')));
  return tf.add(matMul(hidden as tf.Tensor2D, w('decoder/out')), w('decoder/outBias')) as tf.Tensor2D;
}
