import { formatCount } from '../core/util/format';
import './pager.css';

/**
 * Page `page` (0-based, clamped to the last) of `count` items, `size` to a page: the page shown,
 * how many there are, and the first item's position.
 */
export function pageWindow(count: number, page: number, size: number): { page: number; pages: number; start: number } {
  const pages = Math.max(1, Math.ceil(count / size));
  const p = Math.min(Math.max(0, page), pages - 1);
  return { page: p, pages, start: p * size };
}

/**
 * First / Previous / "Page n of m" / Next / Last, the pager of the dataset preview and the audit
 * table. Renders nothing for a single page.
 */
export function Pager({
  page,
  pages,
  onPage,
  label,
  className,
}: {
  /** 0-based. */
  page: number;
  pages: number;
  onPage: (page: number) => void;
  /** The navigation landmark's name ("Row pages"). */
  label: string;
  className?: string;
}) {
  if (pages <= 1) return null;
  const first = page === 0;
  const last = page >= pages - 1;
  return (
    <nav className={className ? `pager ${className}` : 'pager'} aria-label={label}>
      <button type="button" onClick={() => onPage(0)} disabled={first}>
        First
      </button>
      <button type="button" onClick={() => onPage(page - 1)} disabled={first}>
        Previous
      </button>
      <span>
        Page {formatCount(page + 1)} of {formatCount(pages)}
      </span>
      <button type="button" onClick={() => onPage(page + 1)} disabled={last}>
        Next
      </button>
      <button type="button" onClick={() => onPage(pages - 1)} disabled={last}>
        Last
      </button>
    </nav>
  );
}
