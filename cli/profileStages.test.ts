import { describe, expect, it } from 'vitest';
import { type CpuProfile, profileStages, stageOfSource } from './profileStages';

/** A profile by hand: root → generateFamily (core/family) → rng.int (core/random), and others. */
const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
  id,
  callFrame: { functionName, url, lineNumber: id, columnNumber: 0 },
  children,
});
const SOURCES: Record<number, string> = {
  1: '(root)',
  2: 'src/core/family/family.ts',
  3: 'src/core/random/rng.ts',
  4: 'src/core/family/closure.ts',
  5: 'src/core/text/paraphrase.ts',
  6: '(native)',
  7: '(native)',
  8: 'cli/commands/generate.ts',
  9: 'src/core/formats/fromPuzzle.ts',
};
const PROFILE: CpuProfile = {
  nodes: [
    frame(1, '(root)', '', [2, 4, 5, 6, 7, 8]),
    frame(2, 'generateFamily', 'file:///b.mjs', [3]),
    frame(3, 'int', 'file:///b.mjs'),
    frame(4, 'kinshipBySemantics', 'file:///b.mjs'),
    frame(5, 'tell', 'file:///b.mjs'),
    frame(6, '(garbage collector)', ''),
    frame(7, '(idle)', ''),
    frame(8, 'writeFiles', 'file:///b.mjs', [9]),
    frame(9, 'puzzleCsvRecord', 'file:///b.mjs'),
  ],
  // 1 ms each: family 3 (two of them in the Rng it calls), closure 2, text 1, gc 1, idle 5, csv 2, other 1.
  samples: [2, 3, 3, 4, 4, 5, 6, 7, 7, 7, 7, 7, 9, 9, 8],
  timeDeltas: Array(15).fill(1000),
};

describe('profileStages', () => {
  it('gives each sample to the stage of the innermost frame that has one; idle is left out', () => {
    const r = profileStages(PROFILE, (f) => SOURCES[f.lineNumber]!, 3);
    expect(r.totalMs).toBe(10);
    expect(r.ms).toEqual({ family: 3, closure: 2, puzzle: 0, text: 1, csv: 2, gc: 1, other: 1 });
    expect(r.top.map((t) => [t.name, t.ms])).toEqual([
      ['int', 2],
      ['kinshipBySemantics', 2],
      ['puzzleCsvRecord', 2],
    ]);
  });

  it('knows the stage of each core folder, and none for helpers', () => {
    expect(stageOfSource('src/core/family/family.ts')).toBe('family');
    expect(stageOfSource('src/core/family/clutrrClosure.ts')).toBe('closure');
    expect(stageOfSource('src/core/reasoning/backwardChain.ts')).toBe('closure');
    expect(stageOfSource('src/core/puzzle/puzzle.ts')).toBe('puzzle');
    expect(stageOfSource('src/core/text/render.ts')).toBe('text');
    expect(stageOfSource('src/core/formats/jsonl.ts')).toBe('csv');
    expect(stageOfSource('src/core/random/rng.ts')).toBeNull();
    expect(stageOfSource('cli/rowWorkers.ts')).toBeNull();
  });
});
