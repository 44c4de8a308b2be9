/**
 * `display: 'text+drawing'`: the stated facts as an SVG, laid out by the study's own
 * `layoutStatedFacts` (people pulled together by facts, from the puzzle's seed), drawn with plain
 * DOM. The question's two people are outlined (`data-query` "A" / "B"), as in the study.
 */
import type { Puzzle } from '../core/puzzle/puzzle';
import { layoutStatedFacts } from '../graph/layout/statedFacts';

const SVG = 'http://www.w3.org/2000/svg';

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  return node;
}

/** The drawing of a puzzle's stated facts, fitted to a phone's width. */
export function drawFacts(puzzle: Puzzle, width = 340): SVGSVGElement {
  const layout = layoutStatedFacts(puzzle, { width });
  const { x0, y0, x1, y1 } = layout.bounds;
  const root = svg('svg', {
    class: 'clutrr-drawing',
    'data-testid': 'facts-drawing',
    viewBox: `${x0} ${y0} ${x1 - x0} ${y1 - y0}`,
    role: 'img',
    'aria-label': 'The stated facts drawn as arrows between people',
  });
  const defs = svg('defs', {});
  const marker = svg('marker', {
    id: 'clutrr-arrow',
    viewBox: '0 0 10 10',
    refX: 9,
    refY: 5,
    markerWidth: 7,
    markerHeight: 7,
    orient: 'auto-start-reverse',
  });
  marker.append(svg('path', { d: 'M0,0 L10,5 L0,10 z', fill: 'currentColor' }));
  defs.append(marker);
  root.append(defs);
  for (const edge of layout.edges) {
    root.append(
      svg('path', {
        d: edge.d,
        class: 'clutrr-edge',
        fill: 'none',
        stroke: 'currentColor',
        'marker-end': 'url(#clutrr-arrow)',
      }),
    );
    const label = svg('text', {
      x: edge.label.x,
      y: edge.label.y,
      class: 'clutrr-edge-label',
      'text-anchor': 'middle',
      'dominant-baseline': 'middle',
    });
    label.textContent = edge.word;
    root.append(label);
  }
  for (const node of layout.nodes) {
    const g = svg('g', { 'data-testid': 'facts-drawing-person', ...(node.query ? { 'data-query': node.query } : {}) });
    g.append(
      svg('rect', {
        x: node.x - node.width / 2,
        y: node.y - node.height / 2,
        width: node.width,
        height: node.height,
        rx: 6,
        class: node.query ? 'clutrr-person clutrr-person-query' : 'clutrr-person',
      }),
    );
    const name = svg('text', {
      x: node.x,
      y: node.y,
      'text-anchor': 'middle',
      'dominant-baseline': 'middle',
      class: 'clutrr-person-name',
    });
    name.textContent = node.query ? `${node.name} (${node.query})` : node.name;
    g.append(name);
    root.append(g);
  }
  return root;
}
