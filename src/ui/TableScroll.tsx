import type { ReactNode } from 'react';
import './table.css';

interface TableScrollProps {
  /** The feature's own classes for the wrapper (its margins and borders), before `table-scroll`. */
  readonly className?: string;
  /** A column that stays in view while the table scrolls sideways: the row heads or the actions. */
  readonly sticky?: 'first' | 'last';
  /** The region's name, when no caption names it. */
  readonly label?: string;
  /** The id of the caption (or heading) that names the region. */
  readonly labelledBy?: string;
  readonly children: ReactNode;
}

/**
 * A table that scrolls sideways inside its own region rather than widening the page: focusable
 * (arrow keys scroll it) and named, so a keyboard or screen-reader user can reach what is off to
 * the side. Styles in table.css.
 */
export function TableScroll({ className, sticky, label, labelledBy, children }: TableScrollProps) {
  const classes = [className, 'table-scroll', sticky ? `table-scroll--sticky-${sticky}` : undefined]
    .filter(Boolean)
    .join(' ');
  return (
    <div className={classes} tabIndex={0} role="region" aria-label={label} aria-labelledby={labelledBy}>
      {children}
    </div>
  );
}
