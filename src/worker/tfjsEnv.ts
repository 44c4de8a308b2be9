/**
 * Where tfjs runs in the app's workers (the models worker and the train worker): whether WebGL
 * has a real GPU behind it, and the .wasm files of our own build (Vite `?url` imports, never a
 * CDN).
 */
import wasmThreadedSimdUrl from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-threaded-simd.wasm?url';
import wasmSimdUrl from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm?url';
import wasmUrl from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm?url';

/**
 * Whether a hardware-accelerated WebGL context can be made, or why not. tfjs asks for its
 * context with `failIfMajorPerformanceCaveat` (its SOFTWARE_WEBGL_ENABLED flag is off) to refuse
 * software WebGL, but headless Chromium without a GPU still hands a worker's OffscreenCanvas a
 * SwiftShader context that way (tfjs then runs, about 20× slower than wasm). So the renderer's
 * name is checked too, and a software renderer is refused by name.
 */
export function probeWebgl(): true | string {
  if (typeof OffscreenCanvas === 'undefined') return 'no OffscreenCanvas in this browser’s workers';
  const context = (caveat: boolean) => {
    const canvas = new OffscreenCanvas(1, 1);
    const attrs = { failIfMajorPerformanceCaveat: caveat };
    return (canvas.getContext('webgl2', attrs) ?? canvas.getContext('webgl', attrs)) as WebGLRenderingContext | null;
  };
  const release = (gl: WebGLRenderingContext | null) => gl?.getExtension('WEBGL_lose_context')?.loseContext();
  const gl = context(true);
  if (!gl) {
    const software = context(false);
    release(software);
    return software ? 'software WebGL only (no GPU): tfjs refuses it' : 'no WebGL in this browser';
  }
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  const renderer = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER) ?? '');
  release(gl);
  const software = SOFTWARE_RENDERER.exec(renderer);
  return software ? `software WebGL only (${software[0]}, no GPU): refused, as tfjs intends; wasm is faster` : true;
}

/** Renderer names of software rasterisers (Chromium's SwiftShader, Mesa's llvmpipe, Windows' WARP). */
export const SOFTWARE_RENDERER = /swiftshader|llvmpipe|softpipe|software|basic render|\bwarp\b/i;

/** The .wasm files, from our own build (never a CDN); tfjs picks one by SIMD and thread support. */
export const WASM_PATHS: Readonly<Record<string, string>> = {
  'tfjs-backend-wasm.wasm': wasmUrl,
  'tfjs-backend-wasm-simd.wasm': wasmSimdUrl,
  'tfjs-backend-wasm-threaded-simd.wasm': wasmThreadedSimdUrl,
};

/** WASM_PATHS as absolute URLs, from inside a worker (its location is the base). */
export function workerWasmPaths(): Record<string, string> {
  return Object.fromEntries(Object.entries(WASM_PATHS).map(([f, u]) => [f, new URL(u, self.location.href).href]));
}
