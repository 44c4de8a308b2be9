import { describe, expect, it, vi } from 'vitest';
import { closeFamily } from '../../core/family/closure';
import { generatePuzzle } from '../../core/puzzle/puzzle';
import { familyClosure, familyDescribes } from './familyClosure';
import { layoutPuzzle } from './layout';

vi.mock('../../core/family/closure', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../core/family/closure')>();
  return { ...real, closeFamily: vi.fn(real.closeFamily) };
});

describe('familyClosure', () => {
  it('closes a family once, whatever asks (the drawing in both views, the hidden-family toggle)', () => {
    const p = generatePuzzle({ seed: 7, k: 4, task: 1 });
    vi.mocked(closeFamily).mockClear();
    expect(familyDescribes(p)).toBe(true);
    layoutPuzzle(p);
    layoutPuzzle(p, { showHidden: true });
    // A copy of the puzzle (a store update) keeps its family object, so the closure too.
    layoutPuzzle({ ...p }, { showHidden: true });
    expect(closeFamily).toHaveBeenCalledTimes(1);
    expect(familyClosure(p.family)).toBe(familyClosure(p.family));
  });

  it('has no closure for a puzzle without a family', () => {
    expect(familyClosure({ people: [] })).toBeNull();
  });
});
