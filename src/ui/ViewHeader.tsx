import type { ReactNode } from 'react';

/**
 * A page view's header: its h1, which the app focuses after a route change (`data-view-heading`,
 * so it takes focus without entering the tab order), and the hint under it.
 */
export function ViewHeader({
  title,
  className,
  headingId,
  children,
}: {
  title: string;
  className?: string;
  headingId?: string;
  /** The hint paragraph's content. */
  children: ReactNode;
}) {
  return (
    <header className={className}>
      <h1 id={headingId} tabIndex={-1} data-view-heading>
        {title}
      </h1>
      <p className="hint">{children}</p>
    </header>
  );
}
