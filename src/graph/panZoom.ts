import { select, type ZoomBehavior, zoom, zoomIdentity, type ZoomTransform as D3Transform } from 'd3';
import { type Bounds, fitTransform, type ZoomTransform } from './layout/geometry';

export interface PanZoom {
  /** Shows the bounds whole, centred, in a viewport of the given size (measured when absent). */
  fit(bounds: Bounds, size?: { readonly width: number; readonly height: number }): void;
  /** Applies a transform computed elsewhere (e.g. `readableTransform`) in a viewport of that size. */
  show(transform: ZoomTransform, size: { readonly width: number; readonly height: number }): void;
  zoomBy(factor: number): void;
  /** Pans by screen pixels. */
  panBy(dx: number, dy: number): void;
  /** The current transform (for tests and the zoom readout). */
  current(): { x: number; y: number; k: number };
  destroy(): void;
}

export interface PanZoomOptions {
  readonly minZoom?: number;
  readonly maxZoom?: number;
  readonly onChange?: (t: { x: number; y: number; k: number }) => void;
}

/**
 * Pan and zoom on an svg, bound to it by a ref (as xyflow's XYPanZoom): d3-zoom handles drag,
 * pinch and Ctrl/⌘ + wheel; the transform goes straight onto one wrapper <g>, so panning never
 * re-renders React. Plain wheel scrolls the page, as readers expect.
 */
export function createPanZoom(svg: SVGSVGElement, target: SVGGElement, opts: PanZoomOptions = {}): PanZoom {
  const sel = select(svg);
  let t: D3Transform = zoomIdentity;
  // The viewport's size as last fitted: d3-zoom would otherwise read the svg's size on every
  // event, forcing a layout each time.
  let size: { width: number; height: number } | null = null;
  const behaviour: ZoomBehavior<SVGSVGElement, unknown> = zoom<SVGSVGElement, unknown>()
    .extent(() => {
      size ??= svg.getBoundingClientRect();
      return [
        [0, 0],
        [size.width, size.height],
      ];
    })
    .scaleExtent([opts.minZoom ?? 0.08, opts.maxZoom ?? 4])
    .filter((event: Event) => {
      if (event.type === 'wheel') return (event as WheelEvent).ctrlKey || (event as WheelEvent).metaKey;
      return !(event as MouseEvent).button;
    })
    .on('zoom', (event: { transform: D3Transform }) => {
      t = event.transform;
      target.setAttribute('transform', t.toString());
      opts.onChange?.({ x: t.x, y: t.y, k: t.k });
    });
  sel.call(behaviour).on('dblclick.zoom', null);
  return {
    fit(bounds, box) {
      size = box ? { width: box.width, height: box.height } : svg.getBoundingClientRect();
      const { width, height } = size;
      if (width === 0 || height === 0) return;
      const f = fitTransform(bounds, width, height, 24, 1.15);
      sel.call(behaviour.transform, zoomIdentity.translate(f.x, f.y).scale(f.k));
    },
    show(f, box) {
      size = { width: box.width, height: box.height };
      if (box.width === 0 || box.height === 0) return;
      sel.call(behaviour.transform, zoomIdentity.translate(f.x, f.y).scale(f.k));
    },
    zoomBy(factor) {
      sel.call(behaviour.scaleBy, factor);
    },
    panBy(dx, dy) {
      sel.call(behaviour.translateBy, dx / t.k, dy / t.k);
    },
    current: () => ({ x: t.x, y: t.y, k: t.k }),
    destroy() {
      sel.on('.zoom', null);
    },
  };
}
