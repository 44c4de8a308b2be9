import { samplePath } from './edgeClearance';
import { type Bounds, type Box, boxesOverlap, type Point } from './geometry';
import { labelSpots } from './routing';
import { BADGE_RADIUS, labelBox, nodeBox as nodeBoxOf, QUERY_RING_GAP } from './sizes';
import type { GraphLayout, LayoutNode } from './types';

/**
 * Semantic zoom: when the drawing is shown smaller than its type allows (a k = 10 family on a
 * phone, opened so that both of the question's people are in view), text keeps its size on
 * screen instead of shrinking with the drawing. Names and relation words are then larger than
 * the layout made room for, so each takes the room that is free: a name shows whole, shortened
 * ("Christ…") or as its initial; a relation word takes the first free spot near its curve or is
 * left out until the reader zooms in. Pure and deterministic: same layout and zoom, same text.
 */

/** The sizes (px) graph.css sets the drawing's text in. */
export const TYPE = { name: 14, hiddenName: 11, label: 12.5, badge: 12 } as const;
/** No text is drawn smaller than this on screen (font size, px). */
export const SCREEN_TYPE_FLOOR = 10;
/**
 * Below this zoom the story's smallest type (the A/B badge) would be drawn under the floor. (The
 * hidden family's 11 px names are enlarged too once the overview is on; above it they are drawn
 * as they always were, faint background.)
 */
export const OVERVIEW_ZOOM = SCREEN_TYPE_FLOOR / TYPE.badge;

/** How much a type of `size` px is enlarged (in layout units) at `zoom` to stay at the floor. */
export const textScale = (size: number, zoom: number): number => Math.max(1, SCREEN_TYPE_FLOOR / (size * zoom));

/** Rough advance of one character of a name, in ems (semibold system font, a little generous). */
const NAME_EM = 0.6;
/** A line of text is this many ems high (what a name's box holds). */
const LINE_EM = 1.2;
/** Names keep at least this much room (ems) from the next name or node, so neighbours read apart. */
const NAME_GAP_EM = 0.5;

export interface OverviewText {
  /** The zoom the text was fitted for. */
  readonly zoom: number;
  /** Each type's enlargement (≥ 1). */
  readonly scale: {
    readonly name: number;
    readonly hiddenName: number;
    readonly label: number;
    readonly badge: number;
  };
  /** The text each node shows (node id → name, shortened name, initial, or null when nothing fits). */
  readonly names: ReadonlyMap<string, string | null>;
  /** Each story fact's label spot at the enlarged size (edge id → spot, or null: left out at this zoom). */
  readonly labels: ReadonlyMap<string, Point | null>;
}

/** The forms a name can take, longest first: whole, shortened with an ellipsis, its initial. */
export function nameForms(name: string): string[] {
  const forms = [name];
  for (let n = name.length - 2; n >= 2; n--) forms.push(`${name.slice(0, n)}…`);
  if (name.length > 1) forms.push(name.slice(0, 1));
  return forms;
}

/** The box a name's text covers, centred on its node, in type of `font` px (layout units). */
export function nameBox(node: Point, text: string, font: number): Box {
  return { x: node.x, y: node.y, width: text.length * font * NAME_EM, height: font * LINE_EM };
}

/**
 * Where the A/B badge's centre sits, relative to its node, when enlarged by `badgeScale` (> 1):
 * on top of the node, in the middle (at the top-left corner it would cover the enlarged name).
 */
export function overviewBadgeAt(node: { readonly height: number }, badgeScale: number): Point {
  return { x: 0, y: -node.height / 2 - BADGE_RADIUS * badgeScale + 1 };
}

/** A node's shape with its query ring, and its badge (enlarged by `badgeScale`) as its own box. */
function nodeBoxes(n: LayoutNode, badgeScale: number): Box[] {
  if (!n.query) return [{ x: n.x, y: n.y, width: n.width, height: n.height }];
  const ring = { x: n.x, y: n.y, width: n.width + 2 * QUERY_RING_GAP, height: n.height + 2 * QUERY_RING_GAP };
  const r = BADGE_RADIUS * badgeScale;
  const at = overviewBadgeAt(n, badgeScale);
  return [ring, { x: n.x + at.x, y: n.y + at.y, width: 2 * r, height: 2 * r }];
}

/** The point at parameter t along an edge's path (the path sampled evenly in its parameter). */
function pathAt(d: string): (t: number) => Point {
  const pts = samplePath(d);
  return (t) => {
    const f = Math.min(1, Math.max(0, t)) * (pts.length - 1);
    const i = Math.min(pts.length - 2, Math.floor(f));
    const a = pts[i]!;
    const b = pts[i + 1] ?? a;
    const u = f - i;
    return { x: a.x + (b.x - a.x) * u, y: a.y + (b.y - a.y) * u };
  };
}

const inside = (b: Box, o: Bounds) =>
  b.x - b.width / 2 >= o.x0 && b.x + b.width / 2 <= o.x1 && b.y - b.height / 2 >= o.y0 && b.y + b.height / 2 <= o.y1;

/**
 * The text of `layout` drawn at `zoom`, or null when the zoom is at or above `OVERVIEW_ZOOM`
 * (everything is drawn as laid out). Every relation word stays inside `bounds` (what Fit shows;
 * a name may reach past them by its enlargement). Names are fitted first (the question's two people, then the people of the path, then the
 * rest), each clear of every other node and of the names placed before it; then the relation
 * words (path facts first), each clear of every node, name and word placed before it.
 */
export function overviewText(layout: GraphLayout, zoom: number, bounds: Bounds): OverviewText | null {
  if (!(zoom > 0) || zoom >= OVERVIEW_ZOOM) return null;
  const scale = {
    name: textScale(TYPE.name, zoom),
    hiddenName: textScale(TYPE.hiddenName, zoom),
    label: textScale(TYPE.label, zoom),
    badge: textScale(TYPE.badge, zoom),
  };
  const shapes = new Map(layout.nodes.map((n) => [n.id, nodeBoxes(n, scale.badge)]));
  const onPath = new Set<string>();
  for (const e of layout.edges) if (e.kind === 'path') onPath.add(e.source).add(e.target);
  const rank = (n: LayoutNode) => (n.query ? 0 : n.hidden ? 3 : onPath.has(n.id) ? 1 : 2);
  const order = layout.nodes.map((n, i) => ({ n, i }));
  order.sort((a, b) => rank(a.n) - rank(b.n) || (a.n.query ?? '').localeCompare(b.n.query ?? '') || a.i - b.i);

  const placed: Box[] = [];
  const names = new Map<string, string | null>();
  for (const { n } of order) {
    const font = n.hidden ? TYPE.hiddenName * scale.hiddenName : TYPE.name * scale.name;
    const others: Box[] = [];
    for (const o of layout.nodes) if (o.id !== n.id) others.push(...shapes.get(o.id)!);
    let shown: string | null = null;
    for (const form of nameForms(n.name)) {
      const box = nameBox(n, form, font);
      const room = { ...box, width: box.width + NAME_GAP_EM * font };
      const hits = (o: Box) => boxesOverlap(o, room);
      if (!others.some(hits) && !placed.some(hits)) {
        shown = form;
        placed.push(box);
        break;
      }
    }
    names.set(n.id, shown);
  }

  const obstacles: Box[] = [...placed];
  for (const boxes of shapes.values()) obstacles.push(...boxes);
  const facts = layout.edges.filter((e) => e.factId !== null);
  const byPath = facts
    .map((e, i) => ({ e, i }))
    .sort((a, b) => (a.e.kind === 'path' ? 0 : 1) - (b.e.kind === 'path' ? 0 : 1) || a.i - b.i);
  const labels = new Map<string, Point | null>();
  for (const { e } of byPath) {
    let spot: Point | null = null;
    // The layout's own spot first (the drawing stays as it was when it is still free).
    for (const p of [e.label, ...labelSpots(pathAt(e.d))]) {
      const box = labelBox(p, e.word, scale.label);
      if (inside(box, bounds) && !obstacles.some((o) => boxesOverlap(o, box))) {
        spot = p;
        obstacles.push(box);
        break;
      }
    }
    labels.set(e.id, spot);
  }
  return { zoom, scale, names, labels };
}

/** The zoom the overview is fitted for: rounded down to a 1/50 step (so text is never under the floor). */
export const overviewZoom = (k: number): number | null => (k >= OVERVIEW_ZOOM ? null : Math.floor(k * 50) / 50);

/**
 * The boxes the question's people take at `zoom` with their whole names enlarged (their node
 * boxes above `OVERVIEW_ZOOM`): what the opening view must hold to show both.
 */
export function pairBoxesAt(pair: readonly LayoutNode[], zoom: number): Box[] {
  const boxes: Box[] = [];
  const badge = textScale(TYPE.badge, zoom);
  for (const n of pair) {
    boxes.push(...(zoom >= OVERVIEW_ZOOM ? [nodeBoxOf(n)] : nodeBoxes(n, badge)));
    if (zoom < OVERVIEW_ZOOM) boxes.push(nameBox(n, n.name, TYPE.name * textScale(TYPE.name, zoom)));
  }
  return boxes;
}
