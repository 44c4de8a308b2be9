import { useLayoutEffect, useRef, useState } from 'react';

/**
 * The width (CSS px) a chart's box has, kept up to date by a ResizeObserver, so the chart draws at
 * its real size (a viewBox as wide as the box) and its 12 px text stays 12 px on a phone instead
 * of being scaled down with the whole picture. `fallback` until the box is measured; within
 * [min, max].
 */
export function useChartWidth<T extends HTMLElement>(
  fallback: number,
  min = 260,
  max = 960,
): [React.RefObject<T | null>, number] {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(fallback);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const set = (w: number) => {
      if (w > 0) setWidth(Math.round(Math.min(max, Math.max(min, w))));
    };
    const cs = getComputedStyle(el);
    set(el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight));
    const ro = new ResizeObserver((entries) => set(entries[entries.length - 1]!.contentRect.width));
    ro.observe(el);
    return () => ro.disconnect();
  }, [min, max]);
  return [ref, width];
}
