import type { GeneratorCommands } from './protocol';
import { RpcClient, type WorkerLike } from './rpc';

export type GeneratorClient = RpcClient<GeneratorCommands>;

/**
 * The app's generator worker (a module worker bundled by Vite), through the shared RPC client.
 * `onStart` runs each time a worker is (re)started, before any request reaches it.
 */
export function createGeneratorClient(onStart?: (client: GeneratorClient) => void): GeneratorClient {
  return new RpcClient<GeneratorCommands>(
    () =>
      new Worker(new URL('./generator.worker.ts', import.meta.url), {
        type: 'module',
      }) as unknown as WorkerLike,
    'generator worker',
    onStart,
  );
}
