/** A progress bar on stderr when it is a terminal; silent otherwise (pipes, CI logs). */
export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr) {
  const start = performance.now();
  let last = 0;
  const draw = (done: number, total: number, final = false) => {
    if (!stream.isTTY) return;
    const now = performance.now();
    if (!final && now - last < 80) return;
    last = now;
    const width = 30;
    const frac = total > 0 ? Math.min(1, done / total) : 1;
    const bar = '#'.repeat(Math.round(frac * width)).padEnd(width, '.');
    const secs = ((now - start) / 1000).toFixed(1);
    stream.write(`\r${label} [${bar}] ${(frac * 100).toFixed(0).padStart(3)}% ${done}/${total} ${secs}s`);
    if (final) stream.write('\n');
  };
  return { update: (d: number, t: number) => draw(d, t), done: (d: number, t: number) => draw(d, t, true) };
}
