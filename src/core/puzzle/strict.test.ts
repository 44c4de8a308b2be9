import { describe, expect, it } from 'vitest';
import { datasetConfig } from '../formats/datasetFolder';
import { PRED_CODE } from '../kinship/relations';
import { COMPOSE, COMPOSE_SOUND, COMPOSE_STRIDE } from '../kinship/rules';
import { bit, cykPath, DEFAULT_PATH_LIMIT, derive } from '../reasoning/solver';
import { DEFAULT_DATASET, checkPatterns, rowMaker } from './dataset';
import { DEFAULT_DATASET_VALUES, readDatasetOptions } from './datasetOptions';
import { generatePuzzle, type Puzzle, type PuzzleRecord } from './puzzle';
import { TASK_IDS } from './tasks';

const composeWith = (table: Uint8Array, r1: string, r2: string): number =>
  table[PRED_CODE[r1 as keyof typeof PRED_CODE] * COMPOSE_STRIDE + PRED_CODE[r2 as keyof typeof PRED_CODE]]!;

/** Every proof step's head is the sound composition of its body. */
const proofIsSound = (p: PuzzleRecord): boolean =>
  p.proof.every(
    (s) => composeWith(COMPOSE_SOUND, s.body[0].predicate, s.body[1].predicate) === PRED_CODE[s.head.predicate],
  );

/** The strict solver's answer set on the story's facts alone. */
const strictMask = (p: PuzzleRecord): number =>
  derive(
    p.entities.length,
    p.facts.map((f) => ({ from: f.from, to: f.to, predicate: PRED_CODE[f.predicate] })),
    p.query[0],
    p.query[1],
    DEFAULT_PATH_LIMIT,
    true,
  ).mask;

const pathCodes = (p: PuzzleRecord) => p.facts.filter((f) => f.kind === 'path').map((f) => PRED_CODE[f.predicate]);

describe('strict mode: sound rules only', () => {
  it('every strict puzzle of task 1, k = 2..10, has a sound proof and exactly the target under the strict solver', () => {
    for (let k = 2; k <= 10; k++) {
      for (let s = 0; s < 200; s++) {
        const p = generatePuzzle({ seed: `strict-${k}-${s}`, k, task: 1, strict: true });
        expect(p.strict).toBe(true);
        expect(p.proof).toHaveLength(k - 1);
        expect(proofIsSound(p), `seed strict-${k}-${s}: ${p.pattern}`).toBe(true);
        expect(strictMask(p), `seed strict-${k}-${s}: ${p.pattern}`).toBe(bit(PRED_CODE[p.target.predicate]));
        expect(cykPath(pathCodes(p), true)).toBe(bit(PRED_CODE[p.target.predicate]));
      }
    }
  });

  it('holds with noise too: every task, k = 2..6', () => {
    for (const task of TASK_IDS) {
      for (let k = 2; k <= 6; k++) {
        for (let s = 0; s < 12; s++) {
          const p = generatePuzzle({ seed: `strict-noise-${task}-${k}-${s}`, k, task, strict: true });
          expect(proofIsSound(p)).toBe(true);
          expect(strictMask(p), `task ${task}, k ${k}, seed ${s}`).toBe(bit(PRED_CODE[p.target.predicate]));
        }
      }
    }
  });

  it('seed 2, k = 10, task 1: the non-strict puzzle needs an unsound rule, the strict one does not', () => {
    const loose = generatePuzzle({ seed: 2, k: 10, task: 1 });
    const strict = generatePuzzle({ seed: 2, k: 10, task: 1, strict: true });
    // Entailed under CLUTRR's sixteen rules, but nothing follows with the sound ones alone.
    expect(cykPath(pathCodes(loose))).toBe(bit(PRED_CODE[loose.target.predicate]));
    expect(strictMask(loose)).toBe(0);
    expect(proofIsSound(loose)).toBe(false);
    const unsound = loose.proof.find(
      (s) => composeWith(COMPOSE_SOUND, s.body[0].predicate, s.body[1].predicate) !== PRED_CODE[s.head.predicate],
    )!;
    expect(composeWith(COMPOSE, unsound.body[0].predicate, unsound.body[1].predicate)).toBe(
      PRED_CODE[unsound.head.predicate],
    );
    expect(strict.pattern).not.toBe(loose.pattern);
    expect(proofIsSound(strict)).toBe(true);
    expect(strictMask(strict)).toBe(bit(PRED_CODE[strict.target.predicate]));
  });

  it('leaves non-strict puzzles as they were: no strict key, same puzzle with strict: false', () => {
    for (let s = 0; s < 20; s++) {
      const plain: Puzzle = generatePuzzle({ seed: s, k: 4, task: 2 });
      expect('strict' in plain).toBe(false);
      expect(generatePuzzle({ seed: s, k: 4, task: 2, strict: false })).toStrictEqual(plain);
    }
  });

  it('the dataset spec carries strict to every row and config.json records it only when on', () => {
    const t = { task: 1 as const, k: 5 };
    const strictRows = rowMaker({ ...DEFAULT_DATASET, strict: true }, t, 'train');
    for (let i = 0; i < 20; i++) {
      const row = strictRows(i);
      expect(row.puzzle.strict).toBe(true);
      expect(proofIsSound(row.puzzle)).toBe(true);
    }
    expect('strict' in rowMaker(DEFAULT_DATASET, t, 'train')(0).puzzle).toBe(false);
    expect(datasetConfig(DEFAULT_DATASET)).not.toContain('strict');
    expect(JSON.parse(datasetConfig({ ...DEFAULT_DATASET, strict: true })).strict).toBe(true);
  });

  it('the --strict option reads into the spec, and patterns are checked with the sound rules', () => {
    const off = readDatasetOptions(DEFAULT_DATASET_VALUES);
    const on = readDatasetOptions({ ...DEFAULT_DATASET_VALUES, strict: true });
    expect(off.ok && 'strict' in off.spec).toBe(false);
    expect(on.ok && on.spec.strict).toBe(true);
    // son-uncle reads the uncle as the father's brother only under the unsound child ∘ inv-un rule.
    expect(checkPatterns(['son-uncle'], [2])).toBeUndefined();
    expect(checkPatterns(['son-uncle'], [2], true)).toMatch(/no answer under the sound rules/);
  });
});
