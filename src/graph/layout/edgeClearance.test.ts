import { describe, expect, it } from 'vitest';
import { generatePuzzle } from '../../core/puzzle/puzzle';
import { polylineCrossesBox, samplePath, segmentCrossesBox } from './edgeClearance';
import { layoutPuzzle } from './layout';
import { nodeBox } from './sizes';
import type { GraphLayout } from './types';

/** Every drawn edge (facts, hidden family, bare links) that runs through a node not its own end. */
function crossings(layout: GraphLayout): string[] {
  const name = new Map(layout.nodes.map((n) => [n.id, n.name]));
  const found: string[] = [];
  for (const e of [...layout.edges, ...layout.links]) {
    const points = samplePath(e.d);
    for (const n of layout.nodes) {
      if (n.id === e.source || n.id === e.target) continue;
      if (polylineCrossesBox(points, nodeBox(n)))
        found.push(`${name.get(e.source)}→${name.get(e.target)} through ${n.name}`);
    }
  }
  return found;
}

describe('segmentCrossesBox', () => {
  const box = { x: 0, y: 0, width: 20, height: 10 };
  it('sees a segment through the middle, or cutting a corner', () => {
    expect(segmentCrossesBox({ x: -30, y: 0 }, { x: 30, y: 0 }, box)).toBe(true);
    expect(segmentCrossesBox({ x: 0, y: -10 }, { x: 15, y: 0 }, box)).toBe(true);
    expect(segmentCrossesBox({ x: 0, y: 0 }, { x: 1, y: 1 }, box)).toBe(true);
  });
  it('does not count a miss, or a run along the border', () => {
    expect(segmentCrossesBox({ x: -30, y: 6 }, { x: 30, y: 6 }, box)).toBe(false);
    expect(segmentCrossesBox({ x: -30, y: 5 }, { x: 30, y: 5 }, box)).toBe(false);
    expect(segmentCrossesBox({ x: 11, y: -20 }, { x: 11, y: 20 }, box)).toBe(false);
    expect(segmentCrossesBox({ x: -30, y: -30 }, { x: -11, y: 0 }, box)).toBe(false);
  });
});

describe('samplePath', () => {
  it('reads lines and quadratic curves as d3-path writes them', () => {
    expect(samplePath('M0,0L10,5')).toEqual([
      { x: 0, y: 0 },
      { x: 10, y: 5 },
    ]);
    const q = samplePath('M0,0Q10,10,20,0', 2);
    expect(q).toEqual([
      { x: 0, y: 0 },
      { x: 10, y: 5 },
      { x: 20, y: 0 },
    ]);
  });
  it('refuses a command it cannot read, naming it', () => {
    expect(() => samplePath('M0,0C1,1,2,2,3,3')).toThrow(/unsupported command "C"/);
  });
});

describe('edges route around people', () => {
  it('keep Oliver→Derek out of Robert at k = 10, seed 11 (the reported case)', () => {
    for (const task of [1, 5] as const)
      expect(crossings(layoutPuzzle(generatePuzzle({ seed: 11, k: 10, task })))).toEqual([]);
  });

  it('no edge crosses a box but its own ends at k = 10, seeds 0–19, tasks 1 and 5, in both views', () => {
    const failures: string[] = [];
    for (let seed = 0; seed < 20; seed++) {
      for (const task of [1, 5] as const) {
        const p = generatePuzzle({ seed, k: 10, task });
        for (const showHidden of [false, true]) {
          const found = crossings(layoutPuzzle(p, { showHidden }));
          if (found.length > 0) failures.push(`seed ${seed} task ${task}${showHidden ? ' hidden' : ''}: ${found[0]}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('and none at k = 2..9 either (seeds 0–19, tasks 1 and 5, the story view)', () => {
    const failures: string[] = [];
    for (let k = 2; k <= 9; k++) {
      for (let seed = 0; seed < 20; seed++) {
        for (const task of [1, 5] as const) {
          const found = crossings(layoutPuzzle(generatePuzzle({ seed, k, task })));
          if (found.length > 0) failures.push(`k ${k} seed ${seed} task ${task}: ${found[0]}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});
