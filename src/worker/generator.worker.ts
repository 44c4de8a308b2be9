/// <reference lib="webworker" />
import { handlers } from './handlers';
import type { WorkerRequest, WorkerResponse } from './protocol';

declare const self: DedicatedWorkerGlobalScope;

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const req = event.data;
  let reply: WorkerResponse;
  try {
    const handler = handlers[req.command] as (body: unknown) => unknown;
    reply = { id: req.id, ok: true, result: handler(req.body) };
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    reply = { id: req.id, ok: false, error: e.message, kind: e.name };
  }
  self.postMessage(reply);
};
