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

/** The parts of BackendWasm that wasmRowTimes uses (with makeOutput and typedArrayFromHeap). */
interface WasmKernelBackend extends WasmHeapBackend {
  disposeData(dataId: object, force?: boolean): boolean;
}

/** Products `act(x · W + bias)` for one fixed matrix W and many row vectors x, outside the tfjs engine. */
export interface RowTimes {
  /** out[j] = act(Σ_i x[i] W[i, j] + bias[j]) (x of W's row count; out and bias of its column count). */
  (x: Float32Array, bias: Float32Array, out: Float32Array): void;
  /** Frees the input buffers (W is the caller's). */
  dispose(): void;
}

/**
 * `act(x · W + bias)` on the wasm backend by its own kernels, called directly: BatchMatMul
 * (XNNPACK), the bias added on the heap, then `activation` (linear, or the Sigmoid kernel). A
 * recurrent net at inference multiplies one small state by the same matrix hundreds of times,
 * and through the engine each of those products costs more in bookkeeping (tensor tracking,
 * reshapes, scopes) than in arithmetic. The kernels are looked up with tf.getKernel and fed the
 * backend's own buffers (makeOutput; read back from the heap, then disposed). The bias is not
 * the fused matMul's: its XNNPACK operator is cached with the bias packed in, so a bias that
 * changes from call to call would be read once. Returns null on any other backend, or when W is
 * not a float32 matrix: the caller keeps its tfjs ops there.
 */
export function wasmRowTimes(w: tf.Tensor2D, activation: 'linear' | 'sigmoid' = 'linear'): RowTimes | null {
  if (tf.getBackend() !== 'wasm' || w.dtype !== 'float32' || w.rank !== 2) return null;
  const matMul = tf.getKernel('BatchMatMul', 'wasm');
  const sigmoid = tf.getKernel('Sigmoid', 'wasm');
  if (!matMul || !sigmoid) return null;
  const backend = tf.backend() as unknown as WasmKernelBackend;
  const kernelBackend = backend as unknown as tf.KernelBackend;
  const [rows, cols] = w.shape;
  const a = backend.makeOutput([1, rows], 'float32');
  const b: tf.TensorInfo = { dataId: w.dataId, shape: w.shape, dtype: 'float32' };
  const attrs = { transposeA: false, transposeB: false } as unknown as tf.NamedAttrMap;
  const times = ((x: Float32Array, bias: Float32Array, out: Float32Array) => {
    if (x.length !== rows || bias.length !== cols || out.length !== cols)
      throw new Error(`wasmRowTimes: expected ${rows} → ${cols} values`);
    backend.typedArrayFromHeap(a).set(x);
    const product = matMul.kernelFunc({ inputs: { a, b }, backend: kernelBackend, attrs }) as tf.TensorInfo;
    const z = backend.typedArrayFromHeap(product) as Float32Array;
    for (let j = 0; j < cols; j++) z[j] = z[j]! + bias[j]!;
    if (activation === 'sigmoid') {
      const result = sigmoid.kernelFunc({ inputs: { x: product }, backend: kernelBackend, attrs: {} }) as tf.TensorInfo;
      out.set(backend.typedArrayFromHeap(result) as Float32Array);
      backend.disposeData(result.dataId);
    } else out.set(z);
    backend.disposeData(product.dataId);
  }) as RowTimes;
  times.dispose = () => void backend.disposeData(a.dataId, true);
  return times;
}
