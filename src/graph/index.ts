export { FamilyGraph, type FamilyGraphProps, type ProofLight } from './FamilyGraph';
export { GraphLegend } from './Legend';
export { createPanZoom, type PanZoom } from './panZoom';
