/**
 * WriteHealth on its own: the last commit, the storage budget and the probe file, in that order
 * (app.test.ts runs the same through `GET /api/health`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isDiskFull, WriteHealth } from './health';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('WriteHealth', () => {
  it('is ok while writes work and the budget has room; says why not, the failed commit first', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'clutrr-health-'));
    dirs.push(dir);
    let over: string | undefined;
    let now = 1_000_000;
    const health = new WriteHealth(dir, 5_000, () => now, { over: () => over });
    expect(health.report()).toEqual({ ok: true });

    over = 'the database uses 12.0 MB, 2.0 MB over its storage budget of 10 MB: …';
    expect(health.report()).toEqual({ ok: false, error: over });

    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    expect(isDiskFull(full)).toBe(true);
    health.failed(full);
    now += 3_000;
    expect(health.report()).toEqual({
      ok: false,
      error: 'the last write failed 3 s ago: the disk or database is full (database or disk is full)',
    });
    health.succeeded();
    expect(health.report()).toEqual({ ok: false, error: over });

    over = undefined;
    // The folder gone: the next probe (the last one is kept 5 s) cannot write its file.
    rmSync(dir, { recursive: true, force: true });
    now += 6_000;
    expect(health.report()).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^cannot write in the data folder/),
    });
  });

  it('without a budget or a folder (an in-memory store) only the commits count', () => {
    const health = new WriteHealth(null);
    expect(health.report()).toEqual({ ok: true });
    health.failed(new Error('boom'));
    expect(health.report()).toMatchObject({ ok: false, error: expect.stringMatching(/boom$/) });
  });
});
