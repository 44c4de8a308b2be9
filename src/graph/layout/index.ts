// What the components and the views use of the layout; tests import the modules themselves.
export { layoutPuzzle } from './layout';
export { familyDescribes } from './familyClosure';
export { derivedEdge } from './routing';
export { BADGE_RADIUS, QUERY_RING_GAP } from './sizes';
export type { DrawnPuzzle, EdgeKind, GraphLayout, LayoutEdge, LayoutNode } from './types';
