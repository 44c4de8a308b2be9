import { describe, expect, it } from 'vitest';
import { generatePuzzle } from '../puzzle/puzzle';
import { createRng } from '../random/rng';
import { renderPlain } from '../text/plain';
import { parseClutrrCsv } from './clutrrCsv';
import type { ClutrrRow } from './clutrrRow';
import handCsv from './fixtures/stats-hand.csv?raw';
import { puzzleToRow } from './fromPuzzle';
import {
  createStoryStats,
  kendallTau,
  measureRow,
  mergeStoryStats,
  storyStatsLine,
  storyStatsResult,
} from './storyStats';

/**
 * Five hand-written rows in the released style (stats-hand.csv), each worked out by hand:
 *  0  k=3  Dora, Carl, Bob, Anne named: the path Anne-Bob-Carl-Dora reversed, τ = −1; 18 words,
 *          3 facts, 3 sentences; last term "mother" → mother ≠ granddaughter.
 *  1  k=2  path order, τ = 1; "…went out! …stayed home" (no final stop): 12 words, 2 sentences;
 *          last term "son" = son.
 *  2  k=2  path order, τ = 1; a disconnected noise fact (sister) among people named [Kim] and
 *          [Nana]; 17 words, 3 facts, 3 sentences; last term outside brackets "mom", for Jon
 *          (male) → father = father. [Nana] would say grandmother if names were read.
 *  3  k=3  released noisy style: an untyped irrelevant edge (Paul–Zed); named Paul, Rita, Tess,
 *          Uma: path Uma-Tess-Paul-Rita at ranks 4,3,1,2 → 1 concordant, 5 discordant, τ = −4/6;
 *          23 words, 4 edges, 4 sentences; last term "sister" ≠ grandmother.
 *  4  k=2  path order, τ = 1; one sentence stating both facts: 9 words, 2 facts; "daughter" hits.
 */
const hand = parseClutrrCsv(handCsv, 'stats-hand.csv');

describe('kendallTau', () => {
  it('is 1 in order, −1 reversed, (c − d) / pairs otherwise, null below two items', () => {
    expect(kendallTau([3, 8, 20])).toBe(1);
    expect(kendallTau([20, 8, 3])).toBe(-1);
    expect(kendallTau([8, 3, 20])).toBeCloseTo(1 / 3);
    expect(kendallTau([5])).toBeNull();
    expect(kendallTau([])).toBeNull();
  });
});

describe('measureRow', () => {
  it('measures the hand-made rows as worked out by hand', () => {
    const m = hand.map((r) => measureRow(r));
    expect(m.map((x) => x.k)).toEqual([3, 2, 2, 3, 2]);
    expect(m.map((x) => x.pathPeople)).toEqual([
      [0, 1, 2, 3],
      [0, 1, 2],
      [0, 1, 2],
      [0, 1, 2, 3],
      [0, 1, 2],
    ]);
    expect(m[0]!.tau).toBe(-1);
    expect(m[1]!.tau).toBe(1);
    expect(m[2]!.tau).toBe(1);
    expect(m[3]!.tau).toBeCloseTo(-4 / 6, 12);
    expect(m[4]!.tau).toBe(1);
    expect(m.map((x) => x.firstIsQ0)).toEqual([false, true, true, false, true]);
    expect(m.map((x) => [x.words, x.facts, x.sentences])).toEqual([
      [18, 3, 3],
      [12, 2, 2],
      [17, 3, 3],
      [23, 4, 4],
      [9, 2, 1],
    ]);
    expect(m.map((x) => x.lastWordGuess)).toEqual(['mother', 'son', 'father', 'sister', 'daughter']);
    expect(m.map((x) => x.lastWordHit)).toEqual([false, true, true, false, true]);
    expect(m[2]!.noise).toEqual([{ kind: 'disconnected', word: 'sister' }]);
    expect(m[3]!.noise).toEqual([]);
    expect(m.map((x) => x.untypedNoise)).toEqual([0, 0, 0, 1, 0]);
  });

  it('skips τ when fewer than two path people are named or the path facts do not walk', () => {
    const row = hand[4]!;
    expect(measureRow({ ...row, story: 'Someone is [Ned]’s daughter.' }).tau).toBeNull();
    // The path facts lead away from query_edge[1]: no path order.
    const stray = measureRow({ ...row, queryEdge: [0, 1] });
    expect(stray.pathPeople).toBeNull();
    expect(stray.tau).toBeNull();
  });

  it('reads synonyms for the gender of query_edge[1], misses without a term, keeps the term when the gender is unknown', () => {
    const row = hand[4]!; // Pia (female) is the second query entity.
    expect(measureRow({ ...row, story: '[Ned] and [Olga] called [Pia]’s grandpa.' }).lastWordGuess).toBe('grandmother');
    expect(measureRow({ ...row, story: '[Ned], [Olga] and [Pia] went out.' }).lastWordGuess).toBeNull();
    const unknown: ClutrrRow = { ...row, genders: row.genders.map((g) => ({ ...g, gender: '' })) };
    expect(measureRow({ ...unknown, story: 'Ask [Pia]’s MUM.' }).lastWordGuess).toBe('mother');
    expect(measureRow({ ...row, story: '[Pia] is a son-in-law' }).lastWordGuess).toBe('daughter-in-law');
  });

  it('tells noise kinds and the path as the generator made them', () => {
    for (let i = 0; i < 20; i++) {
      const p = generatePuzzle({ seed: `stats:${i}`, k: 3, task: 5 });
      const row = puzzleToRow(p, renderPlain(p, 'train', createRng(p.seed, 'text')), {
        index: i,
        id: `r${i}`,
        split: 'train',
      });
      const m = measureRow(row);
      const path = p.facts.slice(0, p.k);
      expect(m.pathPeople).toEqual([path[0]!.from, ...path.map((f) => f.to)]);
      expect(m.tau).not.toBeNull();
      expect(m.noise).toEqual(p.facts.slice(p.k).map((f) => ({ kind: f.kind, word: f.word })));
      expect(m.facts).toBe(p.facts.length);
    }
  });
});

describe('createStoryStats', () => {
  it('adds the hand-made rows up per k and overall', () => {
    const stats = createStoryStats();
    for (const r of hand) stats.add(r);
    const { byK, overall } = stats.result();
    expect(byK.map((f) => f.k)).toEqual([2, 3]);
    const [k2, k3] = byK;
    expect(k2).toMatchObject({ rows: 3, patterns: 3, tauRows: 3, tauSkipped: 0, tau: 1, untypedNoise: 0 });
    expect(k2!.firstIsQ0).toBe(1);
    expect(k2!.wordsPerFact).toBeCloseTo((12 / 2 + 17 / 3 + 9 / 2) / 3, 12);
    expect(k2!.factsPerSentence).toBeCloseTo((1 + 1 + 2) / 3, 12);
    expect(k2!.majorityAcc).toBeCloseTo(1 / 3, 12);
    expect(k2!.lastWordAcc).toBe(1);
    expect(k2!.noise).toEqual([{ kind: 'disconnected', words: [['sister', 1]] }]);
    expect(k3).toMatchObject({ rows: 2, patterns: 2, firstIsQ0: 0, lastWordAcc: 0, majorityAcc: 0.5 });
    expect(k3!.tau).toBeCloseTo((-1 - 4 / 6) / 2, 12);
    expect(k3!.wordsPerFact).toBeCloseTo((18 / 3 + 23 / 4) / 2, 12);
    expect(k3!.untypedNoise).toBe(1);
    expect(k3!.targets).toEqual([
      ['granddaughter', 1],
      ['grandmother', 1],
    ]);

    expect(overall.rows).toBe(5);
    expect(overall.tau).toBeCloseTo((1 + 1 + 1 - 1 - 4 / 6) / 5, 12);
    expect(overall.firstIsQ0).toBe(0.6);
    expect(overall.wordsPerFact).toBeCloseTo((6 + 17 / 3 + 4.5 + 6 + 5.75) / 5, 12);
    expect(overall.factsPerSentence).toBeCloseTo(6 / 5, 12);
    // Majority per k: one hit at k = 2 (all targets differ), one at k = 3.
    expect(overall.majorityAcc).toBe(0.4);
    expect(overall.lastWordAcc).toBe(0.6);
    expect(storyStatsLine(stats.result())).toBe(
      'rows=5 tau=0.267 words_per_fact=5.58 first_is_q0=0.600 last_word_acc=0.600',
    );
  });

  it('gives the same figures whether files are tallied apart and merged or together', () => {
    const whole = createStoryStats();
    const a = createStoryStats();
    const b = createStoryStats();
    hand.forEach((r, i) => {
      whole.add(r);
      (i < 2 ? a : b).add(r);
    });
    const merged = mergeStoryStats(a.tallies(), b.tallies());
    expect(storyStatsResult(merged)).toEqual(whole.result());
    // Merging leaves its inputs alone.
    expect(a.result().overall.rows).toBe(2);
    // Tallies survive a structured clone (the worker sends them to the page).
    expect(storyStatsResult(structuredClone(merged))).toEqual(whole.result());
  });

  it('prints nan for figures with nothing to measure', () => {
    expect(storyStatsLine(createStoryStats().result())).toBe(
      'rows=0 tau=nan words_per_fact=nan first_is_q0=nan last_word_acc=nan',
    );
  });
});
