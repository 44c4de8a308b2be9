// The shipped model folders, part 1 of 2 (shippedModels.ts: what is checked, and which part checks which folder).
import { afterAll, beforeAll, describe, it } from 'vitest';
import { shippedChecks, useWasmBackend } from './shippedModels';

let restore = async (): Promise<void> => undefined;
beforeAll(async () => {
  restore = await useWasmBackend();
});
afterAll(() => restore());

describe('shipped models (public/models), part 1 of 2', () => {
  for (const check of shippedChecks(1)) it(check.name, check.run, check.timeout);
});
