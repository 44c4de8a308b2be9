import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kinshipBySemantics } from '../family/closure';
import { parseWord, PRED_CODE, type Gender } from '../kinship/relations';
import { generatePuzzle } from '../puzzle/puzzle';
import { TASK_IDS, type TaskId } from '../puzzle/tasks';
import { labelPossible, satisfiableInFamily, type FamilyModelAnswer } from './familyModel';
import type { SolverFact } from './solver';

/** A path story `w1-w2-…` from a first person of gender `first`, and a label for its ends. */
function pattern(f: string, label: string, first: Gender = 'male'): FamilyModelAnswer {
  const words = f.split('-');
  const info = words.map((w) => parseWord(w)!);
  const genders: Gender[] = [first, ...info.map((i) => i.gender)];
  const facts = info.map((i, n) => ({ from: n, to: n + 1, predicate: PRED_CODE[i.predicate] }));
  return labelPossible(genders, facts, 0, words.length, PRED_CODE[parseWord(label)!.predicate]);
}

/** Every fact holds in the witness family, between the entities' people. */
function holdsInWitness(a: FamilyModelAnswer, facts: readonly SolverFact[]): boolean {
  if (a.verdict !== 'possible') return false;
  const g = kinshipBySemantics(a.witness);
  return facts.every((f) => g.rel[a.people[f.from]! * g.n + a.people[f.to]!] === f.predicate);
}

describe('satisfiableInFamily: the patterns of issue 21', () => {
  it.each([
    ['daughter-uncle', 'brother'],
    ['son-grandfather', 'father'],
    ['daughter-aunt', 'sister'],
    ['son-grandmother', 'mother'],
    ['son-mother-father', 'father-in-law'],
    ['husband-son-grandmother', 'mother'],
  ])('%s → %s is possible in some family', (f, label) => {
    expect(pattern(f, label, f.startsWith('husband') ? 'female' : 'male').verdict).toBe('possible');
  });

  it.each([
    ['son-mother-father', 'father'],
    ['son-mother-mother', 'mother'],
    ['daughter-mother-father', 'father'],
    ['daughter-mother-mother', 'mother'],
  ])('%s → %s is true in no family', (f, label) => {
    expect(pattern(f, label).verdict).toBe('impossible');
  });

  it('finds contradictory stories impossible whatever the label', () => {
    // A man's daughter's father is the man himself, never a second man.
    expect(satisfiableInFamily(['male', 'female', 'male'], facts('daughter', 'father')).verdict).toBe('impossible');
    // Siblings never marry (both would be born in the family).
    expect(
      satisfiableInFamily(
        ['male', 'female'],
        [
          { from: 0, to: 1, predicate: PRED_CODE.sibling },
          { from: 0, to: 1, predicate: PRED_CODE.SO },
        ],
      ).verdict,
    ).toBe('impossible');
    // No one is their own grandparent.
    expect(
      satisfiableInFamily(
        ['male', 'male', 'male'],
        [
          { from: 0, to: 1, predicate: PRED_CODE.child },
          { from: 1, to: 2, predicate: PRED_CODE.child },
          { from: 2, to: 0, predicate: PRED_CODE.child },
        ],
      ).verdict,
    ).toBe('impossible');
  });

  it('returns a witness family in which every fact holds', () => {
    const f = [
      { from: 0, to: 1, predicate: PRED_CODE.child },
      { from: 1, to: 2, predicate: PRED_CODE['inv-un'] },
      { from: 0, to: 2, predicate: PRED_CODE.sibling },
    ];
    const a = satisfiableInFamily(['female', 'male', 'male'], f);
    expect(holdsInWitness(a, f)).toBe(true);
  });
});

function facts(...words: string[]): SolverFact[] {
  return words.map((w, i) => ({ from: i, to: i + 1, predicate: PRED_CODE[parseWord(w)!.predicate] }));
}

describe('satisfiableInFamily against generated families', () => {
  it('finds every generated story, noise included, possible with its label, and the witness verifies', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 7 }),
        fc.constantFrom<TaskId>(...TASK_IDS),
        fc.integer(),
        fc.boolean(),
        (k, task, seed, strict) => {
          const p = generatePuzzle({ seed, k, task, strict });
          const storyFacts = p.facts.map((f) => ({ from: f.from, to: f.to, predicate: PRED_CODE[f.predicate] }));
          const all = [...storyFacts, { from: p.query[0], to: p.query[1], predicate: PRED_CODE[p.target.predicate] }];
          const a = satisfiableInFamily(
            p.entities.map((e) => e.gender),
            all,
          );
          expect(a.verdict, `${p.pattern} → ${p.target.word} (seed ${seed}, task ${task})`).toBe('possible');
          expect(holdsInWitness(a, all)).toBe(true);
        },
      ),
      { numRuns: 600 },
    );
  });

  it('answers as the generating family does for every pair of a small family it is asked about', () => {
    // Any two people of a generated family with their true relation are possible; the search never
    // finds a witness that the truth check rejects (it would answer `undecided`).
    for (let s = 0; s < 40; s++) {
      const p = generatePuzzle({ seed: `fm-${s}`, k: 4, task: 1 });
      const g = kinshipBySemantics(p.family);
      const people = p.entities.map((e) => e.person);
      for (let i = 0; i < people.length; i++) {
        for (let j = 0; j < people.length; j++) {
          const r = g.rel[people[i]! * g.n + people[j]!]!;
          if (i === j || r === 0) continue;
          const f = [
            ...p.facts.map((x) => ({ from: x.from, to: x.to, predicate: PRED_CODE[x.predicate] })),
            { from: i, to: j, predicate: r },
          ];
          expect(
            satisfiableInFamily(
              p.entities.map((e) => e.gender),
              f,
            ).verdict,
          ).toBe('possible');
        }
      }
    }
  });
});
