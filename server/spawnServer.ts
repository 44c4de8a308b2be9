/**
 * For tests: the real results server as a child process (`node scripts/serve.mjs`, as `npm run
 * serve` runs it) on a loopback port, resolved once it prints `listening on …`. One helper for the
 * server's own tests (server/testServer.ts) and the browser's (e2e/server/server-fault.spec.ts); it uses
 * node built-ins only, so both layers may import it. Every wait is bounded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface SpawnOptions {
  readonly data: string;
  /** 0 (the default) lets the server pick a free port; the same port again after a kill reuses it. */
  readonly port?: number;
  /** Further flags (`--dist DIR`, `--session-burst N`, …). */
  readonly args?: readonly string[];
  readonly timeoutMs?: number;
}

export interface SpawnedServer {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything the server printed so far (stdout and stderr). */
  output(): string;
  /** SIGTERM, then the exit code (SIGKILL after `ms`). */
  stop(ms?: number): Promise<number | null>;
  /** SIGKILL, resolved once the process is gone: no shutdown handler runs. */
  kill(): Promise<void>;
}

export const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

/** Starts `node scripts/serve.mjs --port P --host 127.0.0.1 --data DIR …`; rejects if it exits or is silent for `timeoutMs`. */
export async function spawnServer(o: SpawnOptions): Promise<SpawnedServer> {
  const timeoutMs = o.timeoutMs ?? 60_000;
  const child = spawn(
    process.execPath,
    [
      path.join(ROOT, 'scripts', 'serve.mjs'),
      '--port',
      String(o.port ?? 0),
      '--host',
      '127.0.0.1',
      '--data',
      o.data,
      ...(o.args ?? []),
    ],
    { cwd: ROOT, env: { ...process.env, INIT_CWD: ROOT }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start within ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onData = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve(m[1]!);
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code ?? signal}) before listening:\n${out}`));
    });
  });
  return {
    url,
    child,
    output: () => out,
    async stop(ms = 10_000) {
      const done = exited(child);
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), ms);
      const code = await done;
      clearTimeout(timer);
      return code;
    },
    async kill() {
      const done = exited(child);
      child.kill('SIGKILL');
      await done;
    },
  };
}
