import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generatePuzzle } from '../../core/puzzle/puzzle';
import type { TaskId } from '../../core/puzzle/tasks';
import { factsOfTriple, type ProofNode, proofInWords, proofTree, stepFacts } from './proof';

const arb = fc
  .record({
    seed: fc.integer({ min: 0, max: 99999 }),
    k: fc.integer({ min: 2, max: 10 }),
    task: fc.constantFrom<TaskId>(1, 2, 3, 4, 5, 6),
  })
  .map((o) => generatePuzzle(o));

const walk = (n: ProofNode, f: (n: ProofNode) => void) => {
  f(n);
  n.children.forEach((c) => walk(c, f));
};

describe('proofTree', () => {
  it('has one inner node per proof step and the k path facts as leaves, in order', () => {
    fc.assert(
      fc.property(arb, (p) => {
        const tree = proofTree(p)!;
        const steps: number[] = [];
        const leaves: (number | null)[] = [];
        walk(tree, (n) => (n.step !== null ? steps.push(n.step) : leaves.push(n.factId)));
        expect(steps.sort((a, b) => a - b)).toEqual(p.proof.map((_, i) => i));
        expect(leaves).toEqual(p.facts.filter((f) => f.kind === 'path').map((f) => f.id));
        expect(tree.triple).toEqual(p.proof[0]!.head);
        expect(tree.triple.word).toBe(p.target.word);
      }),
      { numRuns: 200 },
    );
  });

  it('is null at k = 1', () => {
    expect(proofTree(generatePuzzle({ seed: 1, k: 1, task: 1 }))).toBeNull();
  });
});

describe('stepFacts and factsOfTriple', () => {
  it('light two adjacent stretches of the path that together span the step', () => {
    fc.assert(
      fc.property(arb, (p) => {
        p.proof.forEach((s, i) => {
          const { left, right } = stepFacts(p, i);
          expect(left.length).toBeGreaterThan(0);
          expect(right.length).toBeGreaterThan(0);
          expect([...left, ...right]).toEqual(factsOfTriple(p, s.head));
        });
        expect(factsOfTriple(p, p.proof[0]!.head)).toHaveLength(p.k);
      }),
      { numRuns: 150 },
    );
  });
});

describe('proofInWords', () => {
  it('says one sentence per step and ends on the answer', () => {
    const p = generatePuzzle({ seed: 1234, k: 3, task: 1 });
    const words = proofInWords(p);
    expect(words).toHaveLength(2);
    const a = p.entities[p.query[0]]!.name;
    const b = p.entities[p.query[1]]!.name;
    expect(words[1]).toContain(`so ${b} is ${a}'s ${p.target.word}`);
  });
  it('quotes the single fact at k = 1', () => {
    expect(proofInWords(generatePuzzle({ seed: 5, k: 1, task: 1 }))[0]).toMatch(/^The story states it/);
  });
});
