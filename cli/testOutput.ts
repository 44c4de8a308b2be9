import { afterEach, beforeEach, vi } from 'vitest';

/**
 * For the CLI's tests: captures what commands write to stdout and stderr, fresh for each test.
 * The fields can be reset within a test (`io.err = ''`) between two commands.
 */
export function captureOutput(): { out: string; err: string } {
  const io = { out: '', err: '' };
  beforeEach(() => {
    io.out = '';
    io.err = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((io.out += String(s)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((io.err += String(s)), true));
  });
  afterEach(() => vi.restoreAllMocks());
  return io;
}
