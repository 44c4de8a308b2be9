/** Number formatting shared by the tables of the dataset builder and the audit, and the command line. */

/**
 * 12345 → "12,345". Not toLocaleString: its first call loads ICU data and each call builds a
 * formatter, which cost tens of milliseconds per render of a table.
 */
export const formatCount = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

const UNITS = ['bytes', 'KB', 'MB', 'GB', 'TB'] as const;

/** 1234567 → "1.2 MB" (powers of 1,024; one decimal below 10, none above). */
export function formatBytes(n: number): string {
  let value = Math.max(0, n);
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${formatCount(Math.round(value))} ${value === 1 ? 'byte' : 'bytes'}`;
  return `${value < 10 ? value.toFixed(1) : formatCount(Math.round(value))} ${UNITS[unit]}`;
}
