/**
 * Choosing the tfjs backend, the same in Node and a worker: `wasm` needs to be told where its
 * .wasm files are (a folder path or URL prefix, or a file → URL map); they are never fetched
 * from a CDN. The caller works out that location (Node: the package's dist folder on disk; the
 * browser: the URLs of our own build).
 */
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';

export type BackendName = 'webgl' | 'wasm' | 'cpu';

export async function useBackend(
  name: BackendName | string,
  wasmPaths?: string | Record<string, string>,
): Promise<void> {
  if (name === 'wasm') {
    if (wasmPaths === undefined) throw new Error('the wasm backend needs the location of its .wasm files');
    setWasmPaths(wasmPaths);
  }
  // Production mode: no console notes (in Node, tfjs suggests its native backend at every start).
  tf.env().set('PROD', true);
  if (!(await tf.setBackend(name))) throw new Error(`the ${name} backend did not start`);
  await tf.ready();
}
