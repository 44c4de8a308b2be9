/**
 * Choosing the tfjs backend, the same in Node and a worker: `wasm` needs to be told where its
 * .wasm files are (a folder path or URL prefix, or a file → URL map); they are never fetched
 * from a CDN. The caller works out that location (Node: the package's dist folder on disk; the
 * browser: the URLs of our own build). Starting wasm also replaces its slow Unpack kernel
 * (patchWasmKernels), for every model.
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
  if (name === 'wasm') patchWasmKernels();
}

/** The parts of tfjs-backend-wasm's BackendWasm that the Unpack replacement uses. */
interface WasmHeapBackend {
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  typedArrayFromHeap(t: tf.TensorInfo): Float32Array | Int32Array | Uint8Array;
}

let unpackPatched = false;

/**
 * tfjs-backend-wasm 4.22's Unpack (tf.unstack) copies the whole input once per output (a
 * `readSync` of the full tensor for each slice). Along axis 0 every output is a contiguous run
 * of the input, so the replacement copies each run straight from the wasm heap: the same values,
 * L times less copying (a recurrent net unstacks its L steps' input projections; see
 * src/ml/README.md "The LSTM on wasm"). Other axes and string tensors keep the original kernel.
 * Registered once per process, on the wasm backend only; returns whether it is in place.
 */
export function patchWasmKernels(): boolean {
  if (unpackPatched) return true;
  const original = tf.getKernel('Unpack', 'wasm');
  if (!original) return false;
  unpackPatched = true;
  tf.unregisterKernel('Unpack', 'wasm');
  tf.registerKernel({
    kernelName: 'Unpack',
    backendName: 'wasm',
    kernelFunc: (args) => {
      const x = args.inputs['value'] as tf.TensorInfo;
      const axis = (args.attrs as { axis: number }).axis;
      if ((axis !== 0 && axis !== -x.shape.length) || x.dtype === 'string') return original.kernelFunc(args);
      const backend = args.backend as unknown as WasmHeapBackend;
      const shape = x.shape.slice(1);
      const size = shape.reduce((a, b) => a * b, 1);
      const outs: tf.TensorInfo[] = [];
      for (let i = 0; i < x.shape[0]!; i++) {
        const out = backend.makeOutput(shape, x.dtype);
        // Views are taken after makeOutput: allocating may grow (and move) the heap.
        backend.typedArrayFromHeap(out).set(backend.typedArrayFromHeap(x).subarray(i * size, (i + 1) * size));
        outs.push(out);
      }
      return outs;
    },
  });
  return true;
}
