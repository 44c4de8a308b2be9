/**
 * Gradient check of the text models: the gradients training uses (tf.variableGrads through the
 * encoder's customGrads, the BiLSTM step loop and the models behind it) against central finite
 * differences of the same loss, in float32 on the cpu backend, for every variable of tiny LSTM
 * (attention and mean pooling, one and two layers), RN and MAC models, a story alone and the
 * same story padded in a batch beside a longer one.
 *
 * The loss is the cross-entropy of the first story only, so its value and its gradient must not
 * depend on what it is batched with: the padded batch's gradient must equal the lone story's.
 */
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../core/random/rng';
import type { LabelledBatch, TextNet } from './textNet';
import { textItems } from './textNet';
import { Lstm, LSTM_PAPER } from './lstm';
import { Mac, MAC_PAPER } from './mac';
import { Rn, RN_PAPER } from './rn';
import { crossEntropy } from '../training';
import type { ModelQuestion } from '../model';
import { question, QUESTIONS, tokenizerOf } from './textModelFixtures';

/** The story under test and a longer one it is padded beside. */
const STORY = question('[Dora] went fishing with her brother [Ed].', 'Dora', 'Ed', 'brother');
const LONGER = question(
  '[Finn] and his sister [Gail] baked a cake. [Gail] has a daughter, [Hope]! Where is [Finn]?',
  'Finn',
  'Hope',
  'niece',
);
const tokens = tokenizerOf(QUESTIONS);

/**
 * The finite differences' step. The losses (near 2.9) are float32, so each carries rounding of
 * about 1e-6 and a quotient by 2·EPS about 2e-4; a larger step meets more ReLU kinks (decoder,
 * RN's g and f), where no difference quotient is the derivative.
 */
const EPS = 3e-3;
/** Entries checked per variable (seeded), besides the two largest of the analytic gradient. */
const ENTRIES = 3;

type AnyNet = TextNet<LabelledBatch, unknown>;

/** Cross-entropy of the batch's first story only (training mode; the models have no dropout). */
function lossOf(model: AnyNet, x: unknown, label: number): tf.Scalar {
  const { logits } = model.forward(x, { training: true, rng: createRng(1) });
  return crossEntropy(tf.slice(logits, [0, 0], [1, logits.shape[1]]) as tf.Tensor2D, Int32Array.of(label));
}

function lossValue(model: AnyNet, x: unknown, label: number): number {
  return tf.tidy(() => lossOf(model, x, label).dataSync()[0]!);
}

/** Gradients by variable (zeros where the loss does not reach a variable). */
function analytic(model: AnyNet, x: unknown, label: number): Map<string, Float32Array> {
  const vars = [...model.variables.entries()];
  const { value, grads } = tf.variableGrads(
    () => lossOf(model, x, label),
    vars.map(([, v]) => v),
  );
  const byName = new Map(
    vars.map(([name, v]) => [
      name,
      (grads[v.name]?.dataSync() as Float32Array | undefined) ?? new Float32Array(v.size),
    ]),
  );
  tf.dispose([value, ...Object.values(grads)]);
  return byName;
}

/**
 * ∂loss/∂(variable entry) by central differences, or null where the loss is not smooth (a ReLU
 * kink lies within EPS): the one-sided quotients, or the central ones at steps EPS and EPS / 2,
 * disagree beyond curvature, truncation and rounding. The variable is restored.
 */
function finiteDifference(model: AnyNet, x: unknown, label: number, name: string, entry: number): number | null {
  const v = model.variables.get(name)!;
  const original = v.dataSync().slice() as Float32Array;
  const at = (delta: number) => {
    const values = original.slice();
    values[entry] = values[entry]! + delta;
    tf.tidy(() => v.assign(tf.tensor(values, v.shape)));
    return lossValue(model, x, label);
  };
  const middle = at(0);
  const [plus, minus] = [at(EPS), at(-EPS)];
  const wide = (plus - minus) / (2 * EPS);
  const narrow = (at(EPS / 2) - at(-EPS / 2)) / EPS;
  tf.tidy(() => v.assign(tf.tensor(original, v.shape)));
  const near = (a: number, b: number, absolute: number, relative: number) =>
    Math.abs(a - b) <= absolute + relative * Math.max(Math.abs(a), Math.abs(b));
  // A kink at the point itself bends the one-sided quotients apart (curvature alone moves them
  // by EPS · f''); one within the step moves the central quotient between the two steps.
  const oneSided = near((plus - middle) / EPS, (middle - minus) / EPS, 1e-3, 0.25);
  if (!oneSided || !near(wide, narrow, 5e-4, 0.02)) return null;
  return wide;
}

/** The entries to check: a seeded few and the largest two of the analytic gradient (embedding: rows of the batch's tokens). */
function entriesOf(name: string, grad: Float32Array, usedRows: readonly number[], columns: number): number[] {
  const rng = createRng(`entries/${name}`);
  const picked = new Set<number>();
  for (let i = 0; i < ENTRIES; i++) {
    if (name === 'embedding') {
      const row = usedRows[rng.int(usedRows.length)]!;
      picked.add(row * columns + rng.int(columns));
    } else {
      picked.add(rng.int(grad.length));
    }
  }
  const byMagnitude = [...grad.keys()].sort((a, b) => Math.abs(grad[b]!) - Math.abs(grad[a]!));
  byMagnitude.slice(0, 2).forEach((i) => picked.add(i));
  return [...picked].sort((a, b) => a - b);
}

/**
 * Agreement within float32 finite differences: the difference of two losses near 2.9 carries
 * rounding of ~1e-6, i.e. ~1e-4 in the quotient, and the step's truncation error is relative.
 */
const ABSOLUTE = 1e-3;
const RELATIVE = 0.05;
const agree = (a: number, b: number) => Math.abs(a - b) <= ABSOLUTE + RELATIVE * Math.max(Math.abs(a), Math.abs(b));

interface Mismatch {
  readonly variable: string;
  readonly entry: number;
  readonly analytic: number;
  readonly finite: number;
}

/** Every variable's checked entries whose analytic gradient disagrees with finite differences. */
function check(
  model: AnyNet,
  questions: readonly ModelQuestion[],
): { mismatches: Mismatch[]; grads: Map<string, Float32Array>; checked: number; kinks: number } {
  const batch = model.batch(textItems(questions));
  const label = batch.labels[0]!;
  const x = model.inputs(batch);
  const grads = analytic(model, x, label);
  const ids =
    (batch as unknown as { ids?: Int32Array; sentences?: { ids: Int32Array } }).ids ??
    (batch as unknown as { sentences: { ids: Int32Array } }).sentences.ids;
  const usedRows = [...new Set(ids)];
  const mismatches: Mismatch[] = [];
  let checked = 0;
  let kinks = 0;
  for (const [name, v] of model.variables) {
    const grad = grads.get(name)!;
    const columns = v.shape.length === 2 ? v.shape[1]! : 1;
    for (const entry of entriesOf(name, grad, usedRows, columns)) {
      const finite = finiteDifference(model, x, label, name, entry);
      if (finite === null) {
        kinks++;
        continue;
      }
      checked++;
      if (!agree(grad[entry]!, finite)) mismatches.push({ variable: name, entry, analytic: grad[entry]!, finite });
    }
  }
  tf.dispose(x as tf.TensorContainer);
  return { mismatches, grads, checked, kinks };
}

const TINY_LSTM = { ...LSTM_PAPER, embeddingDim: 8, hidden: 6, attentionDim: 5, decoderHidden: 12, dropout: 0 };

const MODELS: Record<string, () => AnyNet> = {
  'LSTM, attention, 1 layer': () => new Lstm({ ...TINY_LSTM, layers: 1 }, tokens, 3) as unknown as AnyNet,
  'LSTM, attention, 2 layers': () => new Lstm({ ...TINY_LSTM, layers: 2 }, tokens, 4) as unknown as AnyNet,
  'LSTM, mean, 1 layer': () => new Lstm({ ...TINY_LSTM, pooling: 'mean', layers: 1 }, tokens, 5) as unknown as AnyNet,
  'LSTM, mean, 2 layers': () => new Lstm({ ...TINY_LSTM, pooling: 'mean', layers: 2 }, tokens, 6) as unknown as AnyNet,
  RN: () =>
    new Rn(
      { ...RN_PAPER, embeddingDim: 8, hidden: 6, gHidden: 10, fHidden: [12, 8], dropout: 0 },
      tokens,
      7,
    ) as unknown as AnyNet,
  MAC: () =>
    new Mac(
      { ...MAC_PAPER, embeddingDim: 8, hidden: 3, steps: 3, decoderHidden: 12, dropout: 0, cellDropout: 0 },
      tokens,
      8,
    ) as unknown as AnyNet,
};

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('text models: analytic gradients agree with central finite differences (float32, cpu)', () => {
  for (const [label, make] of Object.entries(MODELS)) {
    it(`${label}: alone and padded beside a longer story`, () => {
      const model = make();
      const alone = check(model, [STORY]);
      const padded = check(model, [STORY, LONGER]);
      const describe = (m: Mismatch) =>
        `${m.variable}[${m.entry}]: analytic ${m.analytic.toFixed(5)}, finite differences ${m.finite.toFixed(5)}`;
      // Nearly every entry is checked (a few sit at a ReLU kink).
      expect(alone.checked).toBeGreaterThan(4 * alone.kinks);
      expect(padded.checked).toBeGreaterThan(4 * padded.kinks);
      expect(alone.mismatches.map(describe)).toEqual([]);
      expect(padded.mismatches.map(describe)).toEqual([]);
      // The first story's loss does not depend on the batch, nor does its gradient: alone and
      // padded agree up to float32 summation order, on every entry of every variable.
      const differs: string[] = [];
      for (const [name, g] of alone.grads) {
        const other = padded.grads.get(name)!;
        g.forEach((x, i) => {
          const y = other[i]!;
          if (Math.abs(x - y) > 1e-5 + 1e-3 * Math.max(Math.abs(x), Math.abs(y))) {
            differs.push(`${name}[${i}]: alone ${x.toFixed(5)}, padded ${y.toFixed(5)}`);
          }
        });
      }
      expect(differs.slice(0, 10)).toEqual([]);
      model.dispose();
    });
  }
});
