import { memo, useId, useLayoutEffect, useMemo, useRef, useState, type CSSProperties, type KeyboardEvent } from 'react';
import { drawnBounds } from './layout/drawn';
import { layoutPuzzle } from './layout/layout';
import { derivedEdge } from './layout/routing';
import { boundsOf, fitTransform, readableHeight, readableTransform, type Bounds, type Point } from './layout/geometry';
import { overviewBadgeAt, overviewText, overviewZoom, pairBoxesAt } from './layout/overview';
import { BADGE_RADIUS, nodeBox, QUERY_RING_GAP } from './layout/sizes';
import type { DrawnPuzzle, EdgeKind, LayoutEdge, LayoutNode } from './layout/types';
import { createPanZoom, type PanZoom } from './panZoom';
import './graph.css';

/** What a lit proof step shows: its two body triples' facts and the conclusion it draws. */
export interface ProofLight {
  readonly left: readonly number[];
  readonly right: readonly number[];
  readonly head: { readonly from: number; readonly to: number; readonly word: string };
}

export interface FamilyGraphProps {
  /** A generated puzzle, or one read from a file (its untyped story edges are drawn as bare links). */
  readonly puzzle: DrawnPuzzle;
  /** Lay out and draw the whole family faintly behind the story. */
  readonly showHidden?: boolean;
  /** Facts lit by the pointer or focus (a sentence or an edge). */
  readonly highlighted?: ReadonlySet<number>;
  readonly proof?: ProofLight | null;
  /** Only these facts (and the people they name) are drawn; all when undefined (classroom). */
  readonly visibleFacts?: ReadonlySet<number>;
  /** People drawn even without a visible fact (the classroom shows the query pair early). */
  readonly visibleEntities?: ReadonlySet<number>;
  readonly onHoverFact?: (factId: number | null) => void;
  /** Accessible name of the drawing. */
  readonly label: string;
  readonly className?: string;
  /**
   * The drawing's height follows the family between these bounds (px): the height the family
   * takes at the scale its width allows (never below `minTextZoom`); fixed by CSS when absent.
   */
  readonly autoHeight?: { readonly min: number; readonly max: number };
  /**
   * The smallest zoom the drawing opens at (default `READABLE_ZOOM`: 12 px type renders at least
   * 10 px high). A family too large for the box at this zoom is panned, not shrunk; Fit still
   * shows it whole on request.
   */
  readonly minTextZoom?: number;
  /**
   * A still picture for paper: the whole drawing in the box by its viewBox (no pan or zoom, no
   * measuring), the box's shape the drawing's.
   */
  readonly still?: boolean;
  /**
   * With `still`: screen px per layout unit, so drawings printed together share one scale (see
   * `sharedScale`); the box is then the drawing's size at that scale (within the page's width).
   */
  readonly stillScale?: number;
  /**
   * Facts the opening view centres on when the drawing is larger than its box (the classroom's
   * newest sentence). Without them the view centres on the question's two people (A and B).
   */
  readonly focusFacts?: ReadonlySet<number>;
  /**
   * Open on the whole story, shrinking below `minTextZoom` when it must (a projector shows the
   * whole family instead of panning to follow the story); `minTextZoom` is then the largest zoom.
   */
  readonly whole?: boolean;
  /**
   * A model's attention on the story's facts (fact id → weight in [0, 1], e.g. the GAT's
   * `factAttention`): each fact gets a band under its line, wider and stronger by weight
   * (relative to the largest), and `data-attention`.
   */
  readonly attention?: ReadonlyMap<number, number> | null;
}

/** The opening zoom's floor: the smallest type drawn (12 px) stays at least 10 px high on screen. */
export const READABLE_ZOOM = 0.85;
const MAX_ZOOM = 1.15;

interface ViewArgs {
  readonly bounds: Bounds;
  readonly focus: Bounds | null;
  readonly minTextZoom: number;
  readonly autoHeight: { readonly min: number; readonly max: number } | undefined;
  /** The focus must be shown whole, even below `minTextZoom` (the story's people among the hidden family). */
  readonly focusWhole: boolean;
  /** Everything in `bounds` is shown, at `minTextZoom` or less. */
  readonly whole: boolean;
  /**
   * The focus is the question's pair: to hold both, the view may go below `minTextZoom`, down to
   * `PAIR_MIN_ZOOM`, with a narrower margin; below `OVERVIEW_ZOOM` the text keeps its size on
   * screen (layout/overview.ts), so no text is drawn under 10 px.
   */
  readonly pairFocus: boolean;
  /** The question's two people (what `pairFocus` holds). */
  readonly pair: readonly LayoutNode[];
}

/**
 * The least zoom the opening view takes to hold the question's two people (a k = 10 family on a
 * phone needs about 0.4): below it the names, kept at 10 px, would not fit their boxes' height.
 */
const PAIR_MIN_ZOOM = 0.3;

/** Sizes the box (with `autoHeight`; the observer then calls back) or sets the opening view. */
function openView(svg: SVGSVGElement, pz: PanZoom, size: { width: number; height: number }, v: ViewArgs) {
  if (v.autoHeight) {
    const h = readableHeight(v.bounds, size.width, {
      minScale: v.minTextZoom,
      maxScale: MAX_ZOOM,
      min: v.autoHeight.min,
      max: v.autoHeight.max,
    });
    // The observer calls back with the new size; the view is set for it now, so the drawing
    // never shows a frame without a transform.
    if (Math.abs(h - size.height) > 1) {
      // `h` is the inside of the box; the style's height includes the border.
      const frame = Math.max(0, svg.getBoundingClientRect().height - svg.clientHeight);
      svg.style.height = `${h + frame}px`;
    }
    size = { width: size.width, height: h };
  }
  if (v.whole) {
    pz.show(fitTransform(v.bounds, size.width, size.height, 24, v.minTextZoom), size);
    return;
  }
  let minScale = v.minTextZoom;
  let padding = 24;
  let focus = v.focus;
  let bounds = v.bounds;
  if (v.pairFocus && v.pair.length > 0) {
    padding = 4;
    // Below the readable zoom the names grow past their boxes (semantic zoom): the view holds the
    // pair with their names as drawn at the zoom it takes, so shrink until that settles.
    for (let i = 0; i < 8; i++) {
      const at = overviewZoom(minScale) ?? minScale;
      focus = boundsOf(pairBoxesAt(v.pair, at), 2);
      bounds = {
        x0: Math.min(v.bounds.x0, focus.x0),
        y0: Math.min(v.bounds.y0, focus.y0),
        x1: Math.max(v.bounds.x1, focus.x1),
        y1: Math.max(v.bounds.y1, focus.y1),
      };
      const holds = Math.min(
        (size.width - 2 * padding) / Math.max(1, focus.x1 - focus.x0),
        (size.height - 2 * padding) / Math.max(1, focus.y1 - focus.y0),
      );
      const next = Math.max(PAIR_MIN_ZOOM, Math.min(v.minTextZoom, holds));
      if (Math.abs(next - minScale) < 1e-3) break;
      minScale = next;
    }
  }
  if (v.focusWhole && v.focus) {
    const pad = 24;
    const whole = Math.min(
      (size.width - 2 * pad) / Math.max(1, v.focus.x1 - v.focus.x0),
      (size.height - 2 * pad) / Math.max(1, v.focus.y1 - v.focus.y0),
    );
    minScale = Math.min(minScale, whole);
  }
  pz.show(
    readableTransform(bounds, size.width, size.height, {
      minScale,
      maxScale: MAX_ZOOM,
      focus,
      padding,
    }),
    size,
  );
}

const KIND_WORDS: Record<EdgeKind, string> = {
  path: 'path fact',
  supporting: 'supporting fact',
  irrelevant: 'irrelevant fact',
  disconnected: 'disconnected fact',
  background: 'hidden relation',
};

/**
 * The story as a family: people as nodes (squares for men, rounded for women), facts as arrows
 * "A → B labelled daughter: B is A's daughter". React owns the SVG; d3 computed the layout and
 * the path strings; pan and zoom act on one wrapper <g>.
 */
export function FamilyGraph(props: FamilyGraphProps) {
  const { puzzle, showHidden = false, highlighted, proof, visibleFacts, visibleEntities, onHoverFact, label } = props;
  const { attention } = props;
  const attentionMax = useMemo(() => Math.max(1e-6, ...(attention?.values() ?? [])), [attention]);
  // The family's closure comes from the layout's per-family cache, shared with the view's toggle.
  const layout = useMemo(() => layoutPuzzle(puzzle, { showHidden }), [puzzle, showHidden]);
  const hiddenOk = showHidden && layout.familyKnown;
  const svgRef = useRef<SVGSVGElement>(null);
  const viewRef = useRef<SVGGElement>(null);
  const zoomRef = useRef<PanZoom | null>(null);
  const helpId = useId();
  const markerId = useId().replace(/:/g, '');

  // What is drawn (people and labels, the hidden family's when shown) decides the view: the
  // opening view never zooms below `minTextZoom` (a larger family is panned), Fit shows it all.
  const { autoHeight, focusFacts, minTextZoom = READABLE_ZOOM } = props;
  const still = props.still === true;
  // The whole story (not only what the classroom has told so far), so the view does not jump.
  const bounds = useMemo(() => drawnBounds(layout.nodes, layout.edges), [layout]);
  const focus = useMemo<Bounds | null>(() => {
    // With the hidden family (often far wider than the box), the story's people stay in view;
    // else the question's two people do (a phone opens on A and B, not on the left edge).
    if (!focusFacts || focusFacts.size === 0) {
      if (hiddenOk) return boundsOf(layout.nodes.filter((n) => !n.hidden).map((n) => nodeBox(n)));
      const pair = layout.nodes.filter((n) => n.query !== null && !n.hidden).map((n) => nodeBox(n));
      return pair.length ? boundsOf(pair, 2) : null;
    }
    const ids = new Set<number>();
    for (const f of puzzle.facts) if (focusFacts.has(f.id)) ids.add(f.from).add(f.to);
    const boxes = layout.nodes.filter((n) => n.entity !== null && ids.has(n.entity)).map((n) => nodeBox(n));
    return boxes.length ? boundsOf(boxes) : null;
  }, [focusFacts, puzzle, layout, hiddenOk]);

  // The box's size is measured once on mount, then comes from a ResizeObserver (read after
  // layout, never forcing one); the opening view is set when the box changes and whenever the
  // drawing changes.
  const sizeRef = useRef<{ width: number; height: number } | null>(null);
  const viewArgs = useRef<ViewArgs | null>(null);
  // The zoom (in 1/50 steps) while it is below the readable zoom, else null: the text is then
  // fitted to stay 10 px on screen (semantic zoom). Changes only when a step is crossed.
  const [zoomStep, setZoomStep] = useState<number | null>(null);
  useLayoutEffect(() => {
    const svg = svgRef.current;
    const g = viewRef.current;
    if (!svg || !g || still) return;
    const pz = createPanZoom(svg, g, { onChange: (t) => setZoomStep(overviewZoom(t.k)) });
    zoomRef.current = pz;
    // Measured once before the first paint, so the drawing never shows without its view.
    sizeRef.current = { width: svg.clientWidth, height: svg.clientHeight };
    const ro = new ResizeObserver((entries) => {
      const r = entries[entries.length - 1]!.contentRect;
      const prev = sizeRef.current;
      sizeRef.current = { width: r.width, height: r.height };
      if (!prev || Math.abs(prev.width - r.width) > 1 || Math.abs(prev.height - r.height) > 1) {
        if (viewArgs.current) openView(svg, pz, sizeRef.current, viewArgs.current);
      }
    });
    ro.observe(svg);
    return () => {
      ro.disconnect();
      pz.destroy();
      zoomRef.current = null;
    };
  }, [still]);
  useLayoutEffect(() => {
    viewArgs.current = {
      bounds,
      focus,
      minTextZoom,
      autoHeight,
      focusWhole: hiddenOk && !focusFacts?.size,
      whole: props.whole === true,
      pairFocus: !hiddenOk && !focusFacts?.size,
      pair: layout.nodes.filter((n) => n.query !== null && !n.hidden),
    };
    const svg = svgRef.current;
    if (svg && zoomRef.current && sizeRef.current) openView(svg, zoomRef.current, sizeRef.current, viewArgs.current);
  }, [bounds, focus, minTextZoom, autoHeight, hiddenOk, focusFacts, props.whole, layout]);
  const fit = () => zoomRef.current?.fit(bounds, sizeRef.current ?? undefined);
  const overview = useMemo(
    () => (still || zoomStep === null ? null : overviewText(layout, zoomStep, bounds)),
    [still, zoomStep, layout, bounds],
  );
  const overviewStyle = useMemo<CSSProperties | undefined>(
    () =>
      overview
        ? ({
            '--name-scale': overview.scale.name.toFixed(3),
            '--hidden-name-scale': overview.scale.hiddenName.toFixed(3),
            '--label-scale': overview.scale.label.toFixed(3),
            '--badge-scale': overview.scale.badge.toFixed(3),
          } as CSSProperties)
        : undefined,
    [overview],
  );
  const wordsLeftOut = overview ? [...overview.labels.values()].filter((p) => p === null).length : 0;

  const lit = useMemo(() => {
    const left = new Set(proof?.left ?? []);
    const right = new Set(proof?.right ?? []);
    return { left, right };
  }, [proof]);

  const shownNodes = useMemo(() => {
    if (!visibleFacts) return null;
    const s = new Set<number>(visibleEntities ?? []);
    for (const f of puzzle.facts) {
      if (visibleFacts.has(f.id)) {
        s.add(f.from);
        s.add(f.to);
      }
    }
    return s;
  }, [puzzle, visibleFacts, visibleEntities]);

  const endpointsLit = useMemo(() => {
    const s = new Set<string>();
    for (const e of layout.edges) {
      if (e.factId !== null && (highlighted?.has(e.factId) || lit.left.has(e.factId) || lit.right.has(e.factId))) {
        s.add(e.source);
        s.add(e.target);
      }
    }
    return s;
  }, [layout, highlighted, lit]);

  const nodeById = useMemo(() => new Map(layout.nodes.map((n) => [n.id, n])), [layout]);
  const derived = useMemo(
    () => (proof ? derivedEdge(layout, proof.head.from, proof.head.to, proof.head.word) : null),
    [layout, proof],
  );

  const onKey = (e: KeyboardEvent<SVGSVGElement>) => {
    const pz = zoomRef.current;
    if (!pz || e.target !== e.currentTarget) return;
    const step = 40;
    const actions: Record<string, () => void> = {
      '+': () => pz.zoomBy(1.25),
      '=': () => pz.zoomBy(1.25),
      '-': () => pz.zoomBy(0.8),
      '0': fit,
      ArrowLeft: () => pz.panBy(step, 0),
      ArrowRight: () => pz.panBy(-step, 0),
      ArrowUp: () => pz.panBy(0, step),
      ArrowDown: () => pz.panBy(0, -step),
    };
    const act = actions[e.key];
    if (act) {
      e.preventDefault();
      act();
    }
  };

  return (
    <div className={`graph ${props.className ?? ''}`}>
      <div className="graph__tools" role="toolbar" aria-label="Zoom">
        <button type="button" onClick={() => zoomRef.current?.zoomBy(1.25)} aria-label="Zoom in" data-testid="zoom-in">
          +
        </button>
        <button type="button" onClick={() => zoomRef.current?.zoomBy(0.8)} aria-label="Zoom out" data-testid="zoom-out">
          −
        </button>
        <button type="button" onClick={fit} data-testid="zoom-fit">
          Fit
        </button>
      </div>
      <svg
        ref={svgRef}
        className={`graph__svg${overview ? ' graph__svg--overview' : ''}`}
        data-testid="graph"
        role="group"
        aria-label={label}
        aria-describedby={helpId}
        tabIndex={0}
        onKeyDown={onKey}
        data-hidden-family={hiddenOk ? 'true' : 'false'}
        viewBox={still ? `${bounds.x0} ${bounds.y0} ${bounds.x1 - bounds.x0} ${bounds.y1 - bounds.y0}` : undefined}
        data-overview={overview ? 'true' : undefined}
        style={
          still
            ? {
                height: 'auto',
                aspectRatio: `${bounds.x1 - bounds.x0} / ${bounds.y1 - bounds.y0}`,
                ...(props.stillScale ? { width: `${(bounds.x1 - bounds.x0) * props.stillScale}px` } : {}),
              }
            : overviewStyle
        }
      >
        <defs>
          {(['path', 'supporting', 'irrelevant', 'disconnected', 'background', 'lit', 'conclusion'] as const).map(
            (k) => (
              <marker
                key={k}
                id={`${markerId}-${k}`}
                viewBox="0 0 10 10"
                refX="9"
                refY="5"
                markerUnits="userSpaceOnUse"
                markerWidth="11"
                markerHeight="11"
                orient="auto-start-reverse"
                className={`marker marker--${k}`}
              >
                <path d="M0,1 L10,5 L0,9 z" />
              </marker>
            ),
          )}
        </defs>
        <g ref={viewRef}>
          {/* Glows of lit edges under every line and label, so they never hide another edge's word. */}
          <g className="graph__glows" aria-hidden="true">
            {layout.edges.map((e) =>
              e.factId !== null &&
              (!visibleFacts || visibleFacts.has(e.factId)) &&
              (highlighted?.has(e.factId) || lit.left.has(e.factId) || lit.right.has(e.factId)) ? (
                <path
                  key={e.id}
                  className={`edge__glow${lit.left.has(e.factId) ? ' edge__glow--left' : lit.right.has(e.factId) ? ' edge__glow--right' : ''}`}
                  d={e.d}
                />
              ) : null,
            )}
          </g>
          {/* A model's attention: a band under each fact, wider and stronger by weight (relative to the largest). */}
          <g className="graph__attention" aria-hidden="true">
            {attention &&
              layout.edges.map((e) => {
                const w = e.factId === null ? undefined : attention.get(e.factId);
                if (w === undefined || (visibleFacts && !visibleFacts.has(e.factId!))) return null;
                const share = Math.min(1, w / attentionMax);
                return (
                  <path
                    key={e.id}
                    className="edge__attention"
                    d={e.d}
                    style={{ strokeWidth: 3 + 11 * share, strokeOpacity: 0.12 + 0.5 * share }}
                  />
                );
              })}
          </g>
          <g className="graph__edges">
            {layout.links.map((l) => (
              <g key={l.id} className="edge edge--untyped" data-testid="graph-link-untyped" aria-hidden="true">
                <path className="edge__line" d={l.d} />
                <title>A story edge without a relation in the file</title>
              </g>
            ))}
            {layout.edges.map((e) =>
              e.factId !== null && visibleFacts && !visibleFacts.has(e.factId) ? null : (
                <Edge
                  key={e.id}
                  edge={e}
                  markerId={markerId}
                  highlighted={e.factId !== null && !!highlighted?.has(e.factId)}
                  proofRole={
                    e.factId === null
                      ? null
                      : lit.left.has(e.factId)
                        ? 'left'
                        : lit.right.has(e.factId)
                          ? 'right'
                          : null
                  }
                  from={nodeById.get(e.source)!}
                  to={nodeById.get(e.target)!}
                  onHoverFact={onHoverFact}
                  attention={e.factId === null ? undefined : attention?.get(e.factId)}
                  labelAt={overview ? (overview.labels.get(e.id) ?? null) : undefined}
                />
              ),
            )}
          </g>
          <g className="graph__conclusion">
            {derived && proof && (
              <g className="edge edge--conclusion" data-testid="graph-derived-edge" aria-hidden="true">
                <path className="edge__line" d={derived.d} markerEnd={`url(#${markerId}-conclusion)`} />
                <text className="edge__label" x={derived.label.x} y={derived.label.y} dy="0.35em">
                  {proof.head.word}
                </text>
              </g>
            )}
          </g>
          <g className="graph__nodes">
            {layout.nodes.map((n) =>
              n.entity !== null && shownNodes && !shownNodes.has(n.entity) ? null : (
                <Node
                  key={n.id}
                  node={n}
                  lit={endpointsLit.has(n.id)}
                  shown={overview ? (overview.names.get(n.id) ?? null) : undefined}
                  badgeScale={overview?.scale.badge}
                />
              ),
            )}
          </g>
        </g>
      </svg>
      <p id={helpId} className="graph__help">
        Drag to pan, Ctrl + wheel or pinch to zoom. With the drawing focused: arrow keys pan, + and − zoom, 0 fits.
        {wordsLeftOut > 0 && (
          <span data-testid="graph-overview-note">
            {' '}
            Drawn small: names are shortened and{' '}
            {wordsLeftOut === 1 ? 'one relation word is' : `${wordsLeftOut} relation words are`} left out until you zoom
            in.
          </span>
        )}
      </p>
    </div>
  );
}

/**
 * `shown`: the name as the overview fits it (shortened, or null: none fits); undefined: the whole
 * name. `badgeScale`: the overview's enlargement of the A/B badge, which then sits on top of the node.
 */
const Node = memo(function Node(props: {
  node: LayoutNode;
  lit: boolean;
  shown?: string | null | undefined;
  badgeScale?: number | undefined;
}) {
  const { node: n, lit, shown, badgeScale } = props;
  const name = shown === undefined ? n.name : shown;
  const badge = badgeScale === undefined ? { x: -n.width / 2, y: -n.height / 2 } : overviewBadgeAt(n, badgeScale);
  const shape =
    n.gender === 'male' ? (
      <rect className="node__shape" x={-n.width / 2} y={-n.height / 2} width={n.width} height={n.height} rx={3} />
    ) : (
      <rect
        className="node__shape"
        x={-n.width / 2}
        y={-n.height / 2}
        width={n.width}
        height={n.height}
        rx={n.height / 2}
      />
    );
  return (
    <g
      className={`node node--${n.gender}${n.hidden ? ' node--hidden' : ''}${n.query ? ' node--query' : ''}${lit ? ' node--lit' : ''}`}
      transform={`translate(${n.x},${n.y})`}
      data-testid={n.hidden ? 'graph-node-hidden' : 'graph-node'}
      data-name={n.name}
      data-gender={n.gender}
      data-query={n.query ?? undefined}
      aria-hidden={n.hidden ? 'true' : undefined}
    >
      {n.query && (
        <rect
          className="node__ring"
          x={-n.width / 2 - QUERY_RING_GAP}
          y={-n.height / 2 - QUERY_RING_GAP}
          width={n.width + 2 * QUERY_RING_GAP}
          height={n.height + 2 * QUERY_RING_GAP}
          rx={n.gender === 'male' ? 6 : n.height / 2 + QUERY_RING_GAP}
        />
      )}
      {shape}
      {name !== null && (
        <text className="node__name" dy="0.35em">
          {name}
        </text>
      )}
      {n.query && (
        <g className="node__badge" transform={`translate(${badge.x},${badge.y})`}>
          <g className="node__badge-mark">
            <circle r={BADGE_RADIUS} />
            <text dy="0.35em">{n.query}</text>
          </g>
        </g>
      )}
      <title>
        {n.name} ({n.gender})
        {n.query === 'A' ? ', first person of the question' : n.query === 'B' ? ', second person of the question' : ''}
        {n.hidden ? ', not in the story' : ''}
      </title>
    </g>
  );
});

interface EdgeProps {
  readonly edge: LayoutEdge;
  readonly markerId: string;
  readonly highlighted: boolean;
  readonly proofRole: 'left' | 'right' | null;
  readonly from: LayoutNode;
  readonly to: LayoutNode;
  readonly onHoverFact: ((factId: number | null) => void) | undefined;
  /** This fact's attention weight (its band is drawn under every edge, by FamilyGraph). */
  readonly attention?: number;
  /** Where the overview sets the word (null: left out at this zoom); undefined: the layout's spot. */
  readonly labelAt?: Point | null;
}

const Edge = memo(function Edge(props: EdgeProps) {
  const { edge: e, markerId, highlighted, proofRole, from, to, onHoverFact, attention } = props;
  const at = props.labelAt === undefined ? e.label : props.labelAt;
  const on = highlighted || proofRole !== null;
  const kindClass = e.factKind === 'memory' ? 'memory' : e.kind;
  const sentence = `${to.name} is ${from.name}'s ${e.word}`;
  if (e.kind === 'background') {
    return (
      <g
        className={`edge edge--background edge--rel-${e.relation}`}
        data-testid="graph-edge"
        data-kind="background"
        data-relation={e.word}
        aria-hidden="true"
      >
        <path className="edge__line" d={e.d} />
        <title>{e.word ? `${sentence} (not stated in the story)` : `${from.name} – ${to.name}`}</title>
      </g>
    );
  }
  const hover = onHoverFact && e.factId !== null ? () => onHoverFact(e.factId) : undefined;
  const leave = onHoverFact ? () => onHoverFact(null) : undefined;
  return (
    <g
      className={`edge edge--${kindClass}${on ? ' edge--lit' : ''}${proofRole ? ` edge--proof-${proofRole}` : ''}`}
      data-testid="graph-edge"
      data-kind={e.kind}
      data-fact-kind={e.factKind ?? undefined}
      data-fact={e.factId ?? undefined}
      data-highlighted={on ? 'true' : 'false'}
      tabIndex={onHoverFact ? 0 : undefined}
      role="img"
      data-attention={attention === undefined ? undefined : attention.toFixed(3)}
      aria-label={`${sentence} (${e.factKind === 'memory' ? 'memory fact' : KIND_WORDS[e.kind]})${attention === undefined ? '' : `, model attention ${attention.toFixed(2)}`}`}
      onPointerEnter={hover}
      onPointerLeave={leave}
      onFocus={hover}
      onBlur={leave}
    >
      <path className="edge__hit" d={e.d} />
      <path className="edge__line" d={e.d} markerEnd={`url(#${markerId}-${on ? 'lit' : e.kind})`} />
      {e.factKind === 'memory' && <path className="edge__inner" d={e.d} />}
      {at && (
        <text className={`edge__label edge__label--${kindClass}`} x={at.x} y={at.y} dy="0.35em">
          {e.word}
        </text>
      )}
    </g>
  );
});
