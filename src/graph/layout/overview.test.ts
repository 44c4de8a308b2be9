import { describe, expect, it } from 'vitest';
import { generatePuzzle } from '../../core/puzzle/puzzle';
import { drawnBounds } from './drawn';
import { boxesOverlap, type Box } from './geometry';
import { layoutPuzzle } from './layout';
import {
  nameBox,
  nameForms,
  OVERVIEW_ZOOM,
  overviewBadgeAt,
  overviewText,
  overviewZoom,
  pairBoxesAt,
  SCREEN_TYPE_FLOOR,
  TYPE,
} from './overview';
import { BADGE_RADIUS, labelBox } from './sizes';
import type { GraphLayout } from './types';

/** Every text box the overview draws at `zoom`, with what it is, and the node shapes. */
function drawnText(layout: GraphLayout, zoom: number) {
  const o = overviewText(layout, zoom, drawnBounds(layout.nodes, layout.edges))!;
  const names: { who: string; box: Box }[] = [];
  for (const n of layout.nodes) {
    const shown = o.names.get(n.id);
    if (shown == null) continue;
    const font = n.hidden ? TYPE.hiddenName * o.scale.hiddenName : TYPE.name * o.scale.name;
    names.push({ who: `${n.name} as "${shown}"`, box: nameBox(n, shown, font) });
  }
  const labels: { who: string; box: Box }[] = [];
  for (const e of layout.edges) {
    const at = o.labels.get(e.id);
    if (at) labels.push({ who: `label "${e.word}" of ${e.id}`, box: labelBox(at, e.word, o.scale.label) });
  }
  const shapes = layout.nodes.map((n) => {
    const boxes: Box[] = [{ x: n.x, y: n.y, width: n.width, height: n.height }];
    if (n.query) {
      const at = overviewBadgeAt(n, o.scale.badge);
      const r = BADGE_RADIUS * o.scale.badge;
      boxes.push({ x: n.x + at.x, y: n.y + at.y, width: 2 * r, height: 2 * r });
    }
    return { id: n.id, who: n.name, boxes };
  });
  return { o, names, labels, shapes };
}

describe('overviewText (semantic zoom)', () => {
  it('draws everything as laid out at or above the readable zoom', () => {
    const layout = layoutPuzzle(generatePuzzle({ seed: 1, k: 4, task: 1 }));
    const b = drawnBounds(layout.nodes, layout.edges);
    expect(overviewText(layout, OVERVIEW_ZOOM, b)).toBeNull();
    expect(overviewText(layout, 1.2, b)).toBeNull();
    expect(overviewZoom(0.9)).toBeNull();
    expect(overviewZoom(0.437)).toBe(0.42);
  });

  it('shortens a name from its end, down to its initial', () => {
    expect(nameForms('Robert')).toEqual(['Robert', 'Robe…', 'Rob…', 'Ro…', 'R']);
    expect(nameForms('Al')).toEqual(['Al', 'A']);
  });

  it('keeps every text at least 10 px on screen', () => {
    const layout = layoutPuzzle(generatePuzzle({ seed: 3, k: 10, task: 5 }));
    for (const zoom of [0.3, 0.42, 0.6, 0.8]) {
      const { o } = drawnText(layout, zoom);
      expect(TYPE.name * o.scale.name * zoom).toBeGreaterThanOrEqual(SCREEN_TYPE_FLOOR - 1e-9);
      expect(TYPE.hiddenName * o.scale.hiddenName * zoom).toBeGreaterThanOrEqual(SCREEN_TYPE_FLOOR - 1e-9);
      expect(TYPE.label * o.scale.label * zoom).toBeGreaterThanOrEqual(SCREEN_TYPE_FLOOR - 1e-9);
      expect(TYPE.badge * o.scale.badge * zoom).toBeGreaterThanOrEqual(SCREEN_TYPE_FLOOR - 1e-9);
    }
  });

  // The phone's opening views at k = 10 take zooms from about 0.37 to the readable 0.83.
  it('at k = 10 (seeds 0–19, tasks 1 and 5) no text collides, and A and B keep their names', () => {
    const problems: string[] = [];
    for (const task of [1, 5] as const) {
      for (let seed = 0; seed < 20; seed++) {
        const layout = layoutPuzzle(generatePuzzle({ seed, k: 10, task }));
        for (const zoom of [0.36, 0.5, 0.7]) {
          const where = `seed ${seed}, task ${task}, zoom ${zoom}`;
          const { o, names, labels, shapes } = drawnText(layout, zoom);
          // Whole, or at the least (the phone's smallest zooms) four letters and an ellipsis.
          for (const n of layout.nodes) {
            const shown = o.names.get(n.id) ?? '';
            if (n.query && shown !== n.name && (zoom > 0.4 || shown.length < 5))
              problems.push(`${where}: ${n.query} shows "${shown}"`);
          }
          const texts = [...names, ...labels];
          texts.forEach((t, i) => {
            for (const u of texts.slice(i + 1))
              if (boxesOverlap(t.box, u.box)) problems.push(`${where}: ${t.who} overlaps ${u.who}`);
          });
          for (const s of shapes) {
            for (const t of labels)
              if (s.boxes.some((b) => boxesOverlap(b, t.box))) problems.push(`${where}: ${t.who} over ${s.who}`);
            for (const t of names)
              if (!t.who.startsWith(`${s.who} as`) && s.boxes.some((b) => boxesOverlap(b, t.box)))
                problems.push(`${where}: ${t.who} over ${s.who}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('is deterministic, and leaves out few words at a phone’s zoom', () => {
    let words = 0;
    let left = 0;
    for (let seed = 0; seed < 20; seed++) {
      const layout = layoutPuzzle(generatePuzzle({ seed, k: 10, task: 5 }));
      const b = drawnBounds(layout.nodes, layout.edges);
      const a = overviewText(layout, 0.42, b)!;
      expect(overviewText(layout, 0.42, b)).toEqual(a);
      words += a.labels.size;
      left += [...a.labels.values()].filter((p) => p === null).length;
    }
    expect(left / words).toBeLessThan(0.1);
  });

  it('makes the opening view hold the pair’s enlarged names below the readable zoom', () => {
    const layout = layoutPuzzle(generatePuzzle({ seed: 11, k: 10, task: 5 }));
    const pair = layout.nodes.filter((n) => n.query);
    expect(pairBoxesAt(pair, OVERVIEW_ZOOM)).toHaveLength(2);
    const small = pairBoxesAt(pair, 0.4);
    // Each person: ring, badge and the whole name, as wide as the name set at 10 px on screen.
    expect(small).toHaveLength(6);
    const a = pair.find((n) => n.query === 'A')!;
    const nameWidth = small[2]!.width;
    expect(nameWidth * 0.4).toBeCloseTo(a.name.length * SCREEN_TYPE_FLOOR * 0.6, 5);
  });
});
