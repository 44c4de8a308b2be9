import { useEffect, useRef } from 'react';

/** A screen's heading, focused when the screen appears (keyboard and screen-reader users start there). */
export function Heading({ children, id }: { children: string; id?: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <h1 tabIndex={-1} ref={ref} id={id}>
      {children}
    </h1>
  );
}
