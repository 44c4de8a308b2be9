import { describe, expect, it } from 'vitest';
import { clauseFromId } from '../collect/clause';
import { withDefaults, type StudyCondition } from '../definition/definition';
import { authorTag } from '../collect/reviewStories';
import {
  balancedCell,
  counterbalancedOrder,
  firstUnanswered,
  resumeDecision,
  scheduleParticipant,
  studyItems,
  StudyScheduleError,
} from './schedule';

const cond = (id: string, perPuzzleLimitS: number | null = null): StudyCondition => ({
  id,
  perPuzzleLimitS,
  overallLimitS: null,
  display: 'text',
  scratchpad: false,
});

const STUDY = withDefaults({
  seed: 5,
  k: [2, 3, 4],
  tasks: [1, 2],
  itemsPerK: 3,
  practice: 2,
  attentionChecks: 2,
  breakEvery: 5,
  conditions: [cond('timed', 60), cond('untimed')],
});

describe('study items', () => {
  it('are fixed by the study seed and differ with it', () => {
    const a = studyItems(STUDY);
    expect(studyItems({ ...STUDY })).toEqual(a);
    expect(a.main).toHaveLength(18);
    expect(a.practice.map((p) => [p.puzzleId, p.k, p.task])).toEqual([
      ['practice-0', 2, 1],
      ['practice-1', 2, 1],
    ]);
    expect(a.checks).toHaveLength(2);
    const ids = [...a.practice, ...a.main, ...a.checks].map((i) => i.puzzleId);
    expect(new Set(ids).size).toBe(ids.length);
    const seeds = [...a.practice, ...a.main, ...a.checks].map((i) => i.seed);
    expect(new Set(seeds).size).toBe(seeds.length);
    expect(studyItems({ ...STUDY, seed: 6 }).main.map((i) => i.seed)).not.toEqual(a.main.map((i) => i.seed));
    // A participant's session never changes the items.
    const b = scheduleParticipant(STUDY, { participantNumber: 3, sessionSeed: 'other' });
    expect(new Set(b.trials.map((t) => t.item.seed))).toEqual(new Set(seeds));
  });
});

describe('a participant schedule', () => {
  it('is deterministic in the session seed, and the seed changes the order', () => {
    const a = scheduleParticipant(STUDY, { participantNumber: 0, sessionSeed: 'session-a' });
    expect(scheduleParticipant(STUDY, { participantNumber: 0, sessionSeed: 'session-a' })).toEqual(a);
    const b = scheduleParticipant(STUDY, { participantNumber: 0, sessionSeed: 'session-b' });
    expect(b.trials.map((t) => t.item.puzzleId)).not.toEqual(a.trials.map((t) => t.item.puzzleId));
  });

  it('holds every item exactly once: practice first, checks spread among the main items', () => {
    const items = studyItems(STUDY);
    for (let p = 0; p < 50; p++) {
      const s = scheduleParticipant(STUDY, { participantNumber: p, sessionSeed: `s${p}` });
      const ids = s.trials.map((t) => t.item.puzzleId);
      expect(ids.sort()).toEqual([...items.practice, ...items.main, ...items.checks].map((i) => i.puzzleId).sort());
      expect(s.trials.map((t) => t.trialIndex)).toEqual(s.trials.map((_, i) => i));
      expect(s.trials.slice(0, 2).map((t) => t.item.phase)).toEqual(['practice', 'practice']);
      // 18 main items, 2 checks: after the 6th and the 12th main item.
      const rest = s.trials.slice(2).map((t) => t.item.phase);
      expect(rest.indexOf('check')).toBe(6);
      expect(rest.lastIndexOf('check')).toBe(13);
    }
  });

  it('puts a break after every N non-practice trials, never at the end', () => {
    const s = scheduleParticipant(STUDY, { participantNumber: 0, sessionSeed: 1 });
    const breaks = s.steps.filter((x) => x.kind === 'break').map((x) => (x.kind === 'break' ? x.afterTrial : -1));
    // 2 practice trials, then 20 trials: breaks after the 5th, 10th and 15th of them.
    expect(breaks).toEqual([6, 11, 16]);
    expect(s.steps.filter((x) => x.kind === 'trial')).toHaveLength(22);
    const none = scheduleParticipant({ ...STUDY, breakEvery: 0 }, { participantNumber: 0, sessionSeed: 1 });
    expect(none.steps.some((x) => x.kind === 'break')).toBe(false);
    const exact = scheduleParticipant({ ...STUDY, breakEvery: 10 }, { participantNumber: 0, sessionSeed: 1 });
    expect(exact.steps.at(-1)?.kind).toBe('trial');
  });

  it('resumes at the first unanswered trial', () => {
    const s = scheduleParticipant(STUDY, { participantNumber: 0, sessionSeed: 1 });
    expect(firstUnanswered(s.trials, new Set([0, 1, 2, 4]))?.trialIndex).toBe(3);
    expect(firstUnanswered(s.trials, new Set(s.trials.map((t) => t.trialIndex)))).toBeUndefined();
  });
});

describe('counterbalancing', () => {
  it('is a Latin square when there are as many lists as items', () => {
    const base = ['a', 'b', 'c', 'd', 'e'];
    const square = base.map((_, l) => counterbalancedOrder(base, l, base.length));
    for (let pos = 0; pos < base.length; pos++) {
      expect(new Set(square.map((row) => row[pos])).size).toBe(base.length);
    }
    for (const row of square) expect([...row].sort()).toEqual(base);
  });

  it('gives each list the same fixed order to every participant of it, and balances lists', () => {
    const def = { ...STUDY, attentionChecks: 0, practice: 0, order: { mode: 'counterbalanced' as const, lists: 3 } };
    const byList = new Map<number, string[]>();
    const counts = new Map<string, number>();
    for (let p = 0; p < 60; p++) {
      const s = scheduleParticipant(def, { participantNumber: p, sessionSeed: `session-${p}` });
      const order = s.trials.map((t) => t.item.puzzleId);
      const seen = byList.get(s.list!);
      if (seen) expect(order).toEqual(seen);
      else byList.set(s.list!, order);
      const key = `${s.condition.id}/${s.list}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    expect(byList.size).toBe(3);
    // 60 participants over 2 conditions × 3 lists: 10 in each pair.
    expect([...counts.values()]).toEqual(Array(6).fill(10));
    // The lists' orders differ: rotations by a third of the items.
    const [l0, l1] = [byList.get(0)!, byList.get(1)!];
    expect(l1).toEqual([...l0.slice(6), ...l0.slice(0, 6)]);
  });
});

describe('condition assignment', () => {
  it('is balanced over many participants and at every block boundary', () => {
    const def = { ...STUDY, conditions: [cond('a'), cond('b'), cond('c')] };
    const counts = { a: 0, b: 0, c: 0 } as Record<string, number>;
    for (let p = 0; p < 3000; p++) {
      counts[scheduleParticipant(def, { participantNumber: p, sessionSeed: p }).condition.id]!++;
      if ((p + 1) % 3 === 0) expect(new Set(Object.values(counts)).size).toBe(1);
    }
    expect(counts).toEqual({ a: 1000, b: 1000, c: 1000 });
  });

  it('is a seeded permutation within each block, not a fixed rotation', () => {
    const blocks = new Set<string>();
    for (let b = 0; b < 20; b++) {
      blocks.add([0, 1, 2, 3].map((i) => balancedCell(5, b * 4 + i, 4, 'x')).join(''));
    }
    expect(blocks.size).toBeGreaterThan(1);
  });

  it('can be forced by the URL, and a URL study needs it', () => {
    const s = scheduleParticipant(STUDY, { participantNumber: 0, sessionSeed: 1, forcedCondition: 'untimed' });
    expect(s.condition.id).toBe('untimed');
    expect(() => scheduleParticipant(STUDY, { participantNumber: 0, sessionSeed: 1, forcedCondition: 'fast' })).toThrow(
      /condition "fast", which this study does not have \(it has timed, untimed\)/,
    );
    const byUrl = { ...STUDY, assignment: 'url' as const };
    expect(() => scheduleParticipant(byUrl, { participantNumber: 0, sessionSeed: 1 })).toThrow(StudyScheduleError);
    expect(() => scheduleParticipant(STUDY, { participantNumber: -1, sessionSeed: 1 })).toThrow(/participant number/);
  });
});

describe('resume decision', () => {
  it('applies the policy within the maximum age, and expires after it', () => {
    const def = { ...STUDY, maxAgeMinutes: 60, resumePolicy: 'refuse' as const };
    expect(resumeDecision(def, 0, 59 * 60_000)).toBe('refuse');
    expect(resumeDecision({ ...def, resumePolicy: 'resume' }, 0, 60 * 60_000)).toBe('resume');
    expect(resumeDecision(def, 0, 60 * 60_000 + 1)).toBe('expired');
  });
});

describe('collection studies', () => {
  const who = (n: number, sessionSeed = `s-${n}`, participantId = '') => ({
    participantNumber: n,
    sessionSeed,
    participantId,
  });

  it('gives a paraphrase participant their own clauses, seeded by study and session, as main trials only', () => {
    const def = withDefaults({
      kind: 'paraphrase',
      seed: 9,
      clauseKs: [2, 3],
      clausesPerParticipant: 4,
      breakEvery: 2,
    });
    const a = scheduleParticipant(def, who(0, 'session-a'));
    expect(a.trials).toHaveLength(4);
    expect(a.trials.every((t) => t.item.phase === 'main' && t.item.task === 1)).toBe(true);
    for (const { item } of a.trials) {
      const clause = clauseFromId(item.puzzleId, item.seed);
      expect('error' in clause ? clause.error : clause.k).toBe(item.k);
      expect([2, 3]).toContain(item.k);
    }
    // Both sizes take turns; a break after every second trial but the last.
    expect(new Set(a.trials.map((t) => t.item.k))).toEqual(new Set([2, 3]));
    expect(a.steps.map((s) => s.kind)).toEqual(['trial', 'trial', 'break', 'trial', 'trial']);
    expect(scheduleParticipant(def, who(0, 'session-a'))).toEqual(a);
    const b = scheduleParticipant(def, who(0, 'session-b'));
    expect(b.trials.map((t) => t.item.seed)).not.toEqual(a.trials.map((t) => t.item.seed));
    expect(studyItems(def)).toEqual({ practice: [], main: [], checks: [] });
  });

  it('shares embedded stories out evenly over consecutive participants, never giving one their own', () => {
    const stories = Array.from({ length: 7 }, (_, i) => ({
      id: `w${i}/0`,
      clause: 'c1.mother.female-female',
      seed: i,
      story: `Story ${i}.`,
      ...(i === 3 ? { author: authorTag('WRITER-3') } : {}),
    }));
    const def = withDefaults({ kind: 'review', reviewStories: stories, reviewsPerStory: 3, reviewsPerParticipant: 3 });
    const counts = new Map<string, number>();
    for (let n = 0; n < 7; n++) {
      const ids = scheduleParticipant(def, who(n)).trials.map((t) => t.item.puzzleId);
      expect(new Set(ids).size).toBe(3);
      for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    // 7 participants × 3 stories = 21 reviews: 3 for each of the 7 stories.
    expect([...counts.values()]).toEqual([3, 3, 3, 3, 3, 3, 3]);
    for (let n = 0; n < 7; n++) {
      const ids = scheduleParticipant(def, who(n, `s-${n}`, 'WRITER-3')).trials.map((t) => t.item.puzzleId);
      expect(ids).toHaveLength(3);
      expect(ids).not.toContain('w3/0');
    }
    const item = scheduleParticipant(def, who(0)).trials[0]!.item;
    expect(item).toMatchObject({ phase: 'main', k: 1, task: 1 });
  });

  it('schedules placeholders for a live review until the queue hands out stories, then those', () => {
    const def = withDefaults({
      kind: 'review',
      sourceStudy: 'para',
      reviewsPerParticipant: 2,
      sinks: [{ kind: 'server' }],
    });
    expect(scheduleParticipant(def, who(0)).trials.map((t) => t.item.puzzleId)).toEqual(['review-0', 'review-1']);
    const items = [{ puzzleId: 'x/1', phase: 'main' as const, seed: 4, k: 2, task: 1 as const }];
    expect(scheduleParticipant(def, { ...who(0), items }).trials.map((t) => t.item)).toEqual(items);
  });
});
