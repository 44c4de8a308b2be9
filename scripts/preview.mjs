// Starts and stops `vite preview` of a build folder for the measuring scripts (bench-ui, bench-study), in
// its own process group so the caller can stop it and its children with process.kill(-pid).
import { spawn } from 'node:child_process';

/** How long `vite preview` may take to answer (`npx` alone takes seconds on a loaded 2-core machine). */
const START_MS = 30_000;

/**
 * Resolves with the child process once `base` answers; otherwise stops it (so no preview is left
 * holding the port) and throws with vite's output.
 */
export async function startPreview({ port, dist, base }) {
  const child = spawn(
    'npx',
    ['vite', 'preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort', '--outDir', dist],
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const deadline = Date.now() + START_MS;
  while (Date.now() < deadline) {
    try {
      const r = await fetch(base);
      if (r.ok) return child;
    } catch {
      // not up yet
    }
    if (child.exitCode !== null) throw new Error(`vite preview exited:\n${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  stopPreview(child);
  throw new Error(`vite preview did not answer on ${base} within ${START_MS / 1000} s:\n${log}`);
}

/** Stops the preview started by startPreview, its children with it where the group can be signalled. */
export function stopPreview(preview) {
  try {
    process.kill(-preview.pid, 'SIGTERM');
  } catch {
    preview.kill('SIGTERM');
  }
}
