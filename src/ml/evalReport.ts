/**
 * What `eval` says beyond its totals: each row's outcome joined with the audit's verdict on the
 * row (is the label entailed by the stated facts, only through an assumption, true in no family,
 * ambiguous…), the breakdowns by verdict and by predicted class with the majority baseline
 * beside each, and the per-row record that `eval --rows` writes as JSON lines. Pure, so the CLI
 * and the browser's training panel read a file's answers the same way.
 */
import type { ClutrrRow } from '../core/formats/clutrrRow';
import { rowK } from '../core/formats/toPuzzle';
import { checkRow } from '../core/reasoning/checkRow';
import { CLASSES } from './encoding';

/** The audit's reading of a row, as a model's answer is judged against it. */
export const VERDICT_GROUPS = [
  'entailed',
  'assumed, possible',
  'true in no family',
  'ambiguous',
  'unsupported',
  'unchecked',
] as const;
export type VerdictGroup = (typeof VERDICT_GROUPS)[number];

/** What each group means, for the help text and the report's legend. */
export const VERDICT_GROUP_MEANING: Readonly<Record<VerdictGroup, string>> = {
  entailed: 'the sound rules derive exactly the label from the typed facts',
  'assumed, possible':
    'the label follows only through an assumption rule, and no check found it impossible in every family',
  'true in no family': 'the label follows only through an assumption rule that no family can satisfy',
  ambiguous: 'the typed facts allow more than one answer',
  unsupported: 'the typed facts do not reach the label',
  unchecked: 'the row could not be checked (an unknown word or a query person without a gender)',
};

/** The audit's group of one row (checkRow on its symbolic columns; never throws). */
export function verdictGroup(row: ClutrrRow): VerdictGroup {
  let check: ReturnType<typeof checkRow>;
  try {
    check = checkRow(row);
  } catch {
    return 'unchecked';
  }
  if (check.verdict !== 'entailed') return check.verdict;
  if (check.basis?.kind !== 'assumed') return 'entailed';
  return check.basis.family === 'impossible' ? 'true in no family' : 'assumed, possible';
}

/** One answered row, as `eval --rows` writes it (one JSON object a line). */
export interface AnsweredRow {
  readonly id: string;
  readonly file: string;
  readonly k: number;
  readonly task: string;
  readonly gold: string;
  readonly predicted: string;
  readonly correct: boolean;
  /** The five most probable classes, most probable first, probabilities to four decimals. */
  readonly top5: readonly { readonly answer: string; readonly p: number }[];
  readonly verdict: VerdictGroup;
}

/** A row's record from the model's probabilities (NUM_CLASSES, CLASSES order). */
export function answeredRow(file: string, id: string, row: ClutrrRow, probs: ArrayLike<number>): AnsweredRow {
  const order = Array.from({ length: CLASSES.length }, (_, i) => i).sort((a, b) => probs[b]! - probs[a]! || a - b);
  const predicted = CLASSES[order[0]!]!;
  return {
    id,
    file,
    k: rowK(row),
    task: row.taskName,
    gold: row.target,
    predicted,
    correct: predicted === row.target,
    top5: order.slice(0, 5).map((i) => ({ answer: CLASSES[i]!, p: Math.round(probs[i]! * 1e4) / 1e4 })),
    verdict: verdictGroup(row),
  };
}

interface Tally {
  rows: number;
  correct: number;
  gold: Map<string, number>;
}

const newTally = (): Tally => ({ rows: 0, correct: 0, gold: new Map() });

function add(t: Tally, row: AnsweredRow): void {
  t.rows++;
  if (row.correct) t.correct++;
  t.gold.set(row.gold, (t.gold.get(row.gold) ?? 0) + 1);
}

/** The commonest gold answer of a tally and the accuracy of always giving it (ties: CLASSES order, then by word). */
function majority(t: Tally): { answer: string; accuracy: number } {
  let best = '';
  let n = -1;
  for (const [answer, count] of [...t.gold].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (count > n) [best, n] = [answer, count];
  }
  return { answer: best, accuracy: t.rows === 0 ? 0 : n / t.rows };
}

const fixed = (x: number) => x.toFixed(3);

/** Counts answered rows and prints the breakdowns. */
export class EvalBreakdown {
  private readonly all = newTally();
  private readonly byVerdict = new Map<VerdictGroup, Tally>();
  private readonly predicted = new Map<string, { predicted: number; correct: number }>();

  add(row: AnsweredRow): void {
    add(this.all, row);
    let v = this.byVerdict.get(row.verdict);
    if (!v) this.byVerdict.set(row.verdict, (v = newTally()));
    add(v, row);
    const p = this.predicted.get(row.predicted) ?? { predicted: 0, correct: 0 };
    p.predicted++;
    if (row.correct) p.correct++;
    this.predicted.set(row.predicted, p);
  }

  /**
   * The breakdown's lines: by verdict (rows, correct, accuracy and the majority baseline of those
   * rows), then by predicted class (how often given, how often right, how often the gold answer),
   * then the whole set's majority baseline.
   */
  lines(): string[] {
    if (this.all.rows === 0) return [];
    const out = ['by the audit’s verdict on each row (majority: always the commonest target of those rows):'];
    for (const group of VERDICT_GROUPS) {
      const t = this.byVerdict.get(group);
      if (!t) continue;
      const m = majority(t);
      out.push(
        `  ${group}: rows=${t.rows} correct=${t.correct} accuracy=${fixed(t.correct / t.rows)} majority=${fixed(m.accuracy)} (${m.answer})`,
      );
    }
    out.push('by predicted class (given: rows answered so; right: of those, correct; gold: rows with that target):');
    const classes = [...new Set([...this.predicted.keys(), ...this.all.gold.keys()])].sort(
      (a, b) => (this.predicted.get(b)?.predicted ?? 0) - (this.predicted.get(a)?.predicted ?? 0) || (a < b ? -1 : 1),
    );
    for (const c of classes) {
      const p = this.predicted.get(c) ?? { predicted: 0, correct: 0 };
      out.push(`  ${c}: given=${p.predicted} right=${p.correct} gold=${this.all.gold.get(c) ?? 0}`);
    }
    const m = majority(this.all);
    out.push(`majority baseline: always "${m.answer}" accuracy=${fixed(m.accuracy)}`);
    return out;
  }
}
