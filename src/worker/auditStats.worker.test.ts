import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { parseClutrrCsv } from '../core/formats/clutrrCsv';
import handCsv from '../core/formats/fixtures/stats-hand.csv?raw';
import { createStoryStats, mergeStoryStats, storyStatsLine, storyStatsResult } from '../core/formats/storyStats';
import { checkRow } from '../core/reasoning/checkRow';
import { auditFiles } from './audit.worker';
import type { AuditChunk, AuditCommands } from './auditProtocol';
import { type RpcResponse, serve } from './rpc';

/** The audit's chunks for these files, every row kept. */
async function chunksOf(files: { name: string; data: Blob }[]): Promise<AuditChunk[]> {
  const messages: RpcResponse[] = [];
  const body = { files, keep: { first: 1e9, notEntailed: 1e9 } };
  await serve<AuditCommands>({ audit: auditFiles }, (m) => messages.push(m))({ id: 1, command: 'audit', body });
  return messages.filter((m) => m.type === 'chunk').map((m) => m.chunk as AuditChunk);
}

const expected = () => {
  const s = createStoryStats();
  for (const r of parseClutrrCsv(handCsv)) s.add(r, undefined, checkRow(r));
  return s.result();
};

describe('the audit worker’s story statistics', () => {
  it('sends each file’s stats just before the file, over every row, as core measures them', async () => {
    const chunks = await chunksOf([{ name: 'hand.csv', data: new Blob([handCsv]) }]);
    const kinds = chunks.map((c) => c.kind);
    expect(kinds.slice(-2)).toEqual(['stats', 'file']);
    const stats = chunks.find((c) => c.kind === 'stats')!;
    if (stats.kind !== 'stats') throw new Error('no stats');
    expect(stats.file).toBe('hand.csv');
    expect(storyStatsResult(stats.stats)).toEqual(expected());
  });

  it('gives each zip entry its own stats, and none to a malformed file', async () => {
    const zip = zipSync({ 'a.csv': strToU8(handCsv), 'b.csv': strToU8(handCsv) });
    const bad = handCsv.replace('"[(0, 1), (1, 2)]"', '"[(0, 1), (1, 2"');
    const chunks = await chunksOf([
      { name: 'd.zip', data: new Blob([zip]) },
      { name: 'bad.csv', data: new Blob([bad]) },
    ]);
    const stats = chunks.flatMap((c) => (c.kind === 'stats' ? [c] : []));
    expect(stats.map((c) => c.file)).toEqual(['d.zip/a.csv', 'd.zip/b.csv']);
    const both = storyStatsResult(mergeStoryStats(...stats.map((c) => c.stats)));
    expect(both.overall.rows).toBe(10);
    expect(storyStatsLine(both).replace('rows=10', 'rows=5')).toBe(storyStatsLine(expected()));
  });
});
