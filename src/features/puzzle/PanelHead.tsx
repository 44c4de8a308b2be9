import type { ReactNode } from 'react';

/**
 * A puzzle panel's head: its title (the id the panel's section is labelled by) and, when given,
 * the panel's tools beside it.
 */
export function PanelHead({ id, title, tools }: { id: string; title: string; tools?: ReactNode }) {
  return (
    <div className="panel__head">
      <h2 id={id} className="panel__title">
        {title}
      </h2>
      {tools != null && <div className="panel__tools">{tools}</div>}
    </div>
  );
}
