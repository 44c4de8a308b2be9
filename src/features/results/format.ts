/** Number formats of the dashboard: a dash for undefined figures (an interval from one value). */
const DASH = '–';

export const fixed = (v: number, digits: number): string => (Number.isFinite(v) ? v.toFixed(digits) : DASH);

export const range = (lo: number, hi: number, digits: number): string =>
  Number.isFinite(lo) && Number.isFinite(hi) ? `[${lo.toFixed(digits)}, ${hi.toFixed(digits)}]` : DASH;
