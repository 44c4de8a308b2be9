/**
 * The epoch loop every trainer shares, for the training script in Node and the browser's train
 * worker alike: epochs of optimiser steps, the held-out figure after each, a time cap, a stop
 * asked from outside (the panel's cancel), and one record per epoch. Pure: time is
 * `performance.now()`, which Node, workers and pages all have.
 */

/** One epoch's figures (metadata.json `training.history`, the panel's curves). */
export interface EpochRecord {
  readonly epoch: number;
  /** Mean training loss and accuracy (with dropout) over the epoch's rows. */
  readonly loss: number;
  readonly accuracy: number;
  /**
   * Accuracy on the held-out rows after the epoch: the k = 2, 3 test sets of generated data, the
   * validation slice of training files (null when there is none).
   */
  readonly testAccuracy23: number | null;
  readonly seconds: number;
  /** Set on an epoch the time cap or a stop cut short: the batches it ran. */
  readonly batches?: number;
}

/** One optimiser step: its batch's mean loss, correct answers and size. */
export type Step = () => { loss: number; correct: number; size: number };

/** How long and how far to train. */
export interface EpochLimits {
  readonly epochs: number;
  /** Stop between two steps after this many seconds (one step at least) and keep what was learned. */
  readonly maxSeconds?: number;
}

/** What the caller hears and may say while the loop runs. */
export interface EpochHooks {
  /** Progress lines (the script's stderr; ignored by the browser). */
  readonly log?: (s: string) => void;
  /** After each epoch's record (the panel's live curves). */
  readonly onEpoch?: (record: EpochRecord) => void;
  /** After each step: steps run of the epoch's steps. */
  readonly onStep?: (epoch: number, done: number, total: number) => void;
  /** Asked before each step: true stops the run there, keeping what was learned (cancel). */
  readonly shouldStop?: () => boolean;
  /**
   * Awaited after each step: a worker yields here so that a cancel message can arrive between
   * two synchronous steps. The script passes none (no cost).
   */
  readonly between?: () => Promise<void>;
}

/** Why the loop ended. */
export type EpochsEnd = 'done' | 'time-cap' | 'stopped';

/**
 * Keeps the weights of the epoch with the best held-out figure (`--keep-best`): `save` copies the
 * weights as they are (replacing an earlier copy), `restore` puts the copy back, `dispose` frees it.
 */
export interface BestKeeper {
  save(): void;
  restore(): void;
  dispose(): void;
}

/**
 * `epoch(n)` prepares that epoch's steps (drawing its shuffles now, so the rng is used in the
 * same order on every run), the steps run, then `dev(n)` measures the held-out accuracy. With
 * `maxSeconds` the loop stops between two steps once that much time has passed (after one step
 * at least); `shouldStop` stops it the same way. The cut epoch's record says how many batches it
 * ran. A resumed run numbers its epochs on from `history` and returns the whole history. With a
 * `keeper`, the weights of the epoch with the best held-out figure are kept and restored at the
 * end (`bestEpoch`); the held-out rows must then be validation rows, never the test sets.
 */
export async function runEpochs(
  limits: EpochLimits,
  hooks: EpochHooks,
  epoch: (n: number) => readonly Step[],
  dev: (n: number) => Promise<{ correct: number; rows: number }>,
  previous: readonly EpochRecord[] = [],
  keeper?: BestKeeper,
): Promise<{ history: EpochRecord[]; end: EpochsEnd; bestEpoch?: number }> {
  const log = hooks.log ?? (() => {});
  const history: EpochRecord[] = [...previous];
  const first = history.length + 1;
  const last = history.length + limits.epochs;
  const deadline = limits.maxSeconds === undefined ? Infinity : performance.now() + limits.maxSeconds * 1000;
  let end: EpochsEnd = 'done';
  // With a keeper: the best held-out figure of this run's epochs so far (ties keep the earlier).
  let best = -Infinity;
  let bestEpoch: number | undefined;
  for (let n = first; n <= last; n++) {
    const te = performance.now();
    const steps = epoch(n);
    let lossSum = 0;
    let correct = 0;
    let rows = 0;
    let ran = 0;
    for (const step of steps) {
      // At least one step a run, so a cap shorter than a batch still saves a trained model.
      const anyRun = ran > 0 || history.length > first - 1;
      if (anyRun && performance.now() >= deadline) {
        end = 'time-cap';
        break;
      }
      if (anyRun && hooks.shouldStop?.()) {
        end = 'stopped';
        break;
      }
      const s = step();
      lossSum += s.loss * s.size;
      correct += s.correct;
      rows += s.size;
      if (ran % 5 === 0) log(`\r  epoch ${n}/${last}: batch ${ran + 1}/${steps.length} loss ${s.loss.toFixed(3)}`);
      ran++;
      hooks.onStep?.(n, ran, steps.length);
      if (hooks.between) await hooks.between();
    }
    const seconds = (performance.now() - te) / 1000;
    if (ran === 0) {
      if (end === 'time-cap')
        log(`\r  time cap of ${limits.maxSeconds} s reached before epoch ${n}: keeping the weights as they are\n`);
      break;
    }
    const r = await dev(n);
    const row: EpochRecord = {
      epoch: n,
      loss: lossSum / rows,
      accuracy: correct / rows,
      testAccuracy23: r.rows === 0 ? null : r.correct / r.rows,
      seconds,
      ...(ran < steps.length ? { batches: ran } : {}),
    };
    history.push(row);
    hooks.onEpoch?.(row);
    if (keeper && row.testAccuracy23 !== null && row.testAccuracy23 > best) {
      best = row.testAccuracy23;
      bestEpoch = n;
      keeper.save();
    }
    const held = row.testAccuracy23 === null ? 'no held-out rows' : `held-out acc ${row.testAccuracy23.toFixed(3)}`;
    log(
      `\r  epoch ${n}/${last}: loss ${row.loss.toFixed(4)}  train acc ${row.accuracy.toFixed(3)}  ${held}  ${seconds.toFixed(1)} s\n`,
    );
    if (ran < steps.length) {
      if (end === 'time-cap')
        log(
          `  time cap of ${limits.maxSeconds} s reached after ${ran} of ${steps.length} batches: keeping what was learned\n`,
        );
      else log(`  stopped after ${ran} of ${steps.length} batches: keeping what was learned\n`);
      break;
    }
    if (hooks.shouldStop?.()) {
      end = 'stopped';
      break;
    }
  }
  if (keeper) {
    const lastRun = history.at(-1)?.epoch;
    if (bestEpoch !== undefined && bestEpoch !== lastRun) {
      keeper.restore();
      log(`  keeping the weights of epoch ${bestEpoch} (held-out acc ${best.toFixed(3)}), the best of this run\n`);
    }
    keeper.dispose();
  }
  return { history, end, ...(bestEpoch !== undefined ? { bestEpoch } : {}) };
}
