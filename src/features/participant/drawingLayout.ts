import type { Puzzle } from '../../core/puzzle/puzzle';
import { layoutStatedFacts, type StatedFactsLayout } from '../../graph/layout/statedFacts';

/** Below this viewport width the drawing spans the phone's column; above, half of a wide screen. */
export const NARROW_QUERY = '(max-width: 599px)';
/** The layout's width (px) for each: about the drawing's width on screen, so names are drawn near 13 px. */
const NARROW_WIDTH = 340;
const WIDE_WIDTH = 520;

export const drawingWidth = (narrow: boolean) => (narrow ? NARROW_WIDTH : WIDE_WIDTH);

const cache = new WeakMap<Puzzle, Map<number, StatedFactsLayout>>();

/**
 * The study drawing's layout for a puzzle at a width, computed once. The run computes it while it
 * prepares the puzzles (`warmDrawing`), so showing the next trial does not wait for the force
 * layout (tens of milliseconds for k = 10 on a slow phone).
 */
export function drawingLayout(puzzle: Puzzle, width: number): StatedFactsLayout {
  let byWidth = cache.get(puzzle);
  if (!byWidth) cache.set(puzzle, (byWidth = new Map()));
  let layout = byWidth.get(width);
  if (!layout) byWidth.set(width, (layout = layoutStatedFacts(puzzle, { width })));
  return layout;
}

/** Lays out a puzzle's drawing ahead, at the width the page shows now. */
export function warmDrawing(puzzle: Puzzle): void {
  drawingLayout(puzzle, drawingWidth(window.matchMedia(NARROW_QUERY).matches));
}
