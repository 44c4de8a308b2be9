/**
 * A generated study's results, for the dashboard's tests: seeded participants answering
 * CLUTRR puzzles with accuracy falling with k roughly as in the paper's Table 3, response time
 * and difficulty rising with k, two conditions (untimed and 90 s), and a few participants who
 * should be flagged (failed attention checks, many timeouts, a long time in another tab).
 *
 * Simulated people, not data: the shape is realistic enough to exercise every figure, and every
 * number is a pure function of the seed (`createRng`), so the files in e2e/fixtures are golden
 * files (`src/study/resultsFixture.test.ts` keeps them equal to this output).
 */
import { createRng, type Rng } from '../core/random/rng';
import type { TaskId } from '../core/puzzle/tasks';
import { rowsToCsv, rowsToJson, type ResultRow, type SessionInfo } from './results';

/** The paper's time-limited human accuracy at k = 2..6 (Table 3), the centre of the simulation. */
const PAPER_ACCURACY: Readonly<Record<number, number>> = { 2: 0.848, 3: 0.773, 4: 0.477, 5: 0.424, 6: 0.406 };
const PAPER_DIFFICULTY: Readonly<Record<number, number>> = { 2: 1.49, 3: 2.41, 4: 3.81, 5: 3.78, 6: 4.46 };

const WORDS = [
  'father',
  'mother',
  'son',
  'daughter',
  'brother',
  'sister',
  'uncle',
  'aunt',
  'grandfather',
  'grandmother',
];
const NAMES = ['Anna', 'Ben', 'Clara', 'Dev', 'Ella', 'Farid', 'Greta', 'Hugo', 'Ines', 'Jonas', 'Kemal', 'Lena'];

export interface FixtureOptions {
  readonly seed: number | string;
  readonly participants: number;
  readonly ks?: readonly number[];
  readonly tasks?: readonly TaskId[];
  readonly itemsPerK?: number;
}

export interface Fixture {
  readonly rows: ResultRow[];
  readonly sessions: SessionInfo[];
}

/** Roles given to fixed participant numbers (1-based) so the flags have something to find. */
export const FIXTURE_ROLES: {
  readonly checks: readonly number[];
  readonly timeouts: readonly number[];
  readonly hidden: readonly number[];
  readonly formulaId: number;
} = {
  /** Fail one or two attention checks. */
  checks: [7, 23],
  /** Slow and timed: many trials time out. */
  timeouts: [32],
  /** Away from the tab for minutes. */
  hidden: [44],
  /** participant_id starting with `@`: escaped with `'` in CSV, shown without it. */
  formulaId: 42,
};

const logit = (p: number) => Math.log(p / (1 - p));
const logistic = (x: number) => 1 / (1 + Math.exp(-x));

function normal(rng: Rng): number {
  const u = 1 - rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

const hex = (rng: Rng, n: number) => Array.from({ length: n }, () => rng.int(16).toString(16)).join('');

/** Generates every participant's rows (practice, main and attention checks) in trial order. */
export function makeResultsFixture(options: FixtureOptions): Fixture {
  const ks = options.ks ?? [2, 3, 4, 5, 6];
  const tasks = options.tasks ?? ([1, 2] as const);
  const perK = options.itemsPerK ?? 5;
  const rows: ResultRow[] = [];
  const sessions: SessionInfo[] = [];
  const study = createRng(options.seed, 'items');
  type Item = { id: string; phase: ResultRow['phase']; k: number; task: TaskId; seed: number; gold: string };
  const main: Item[] = [];
  for (const k of ks)
    for (const task of tasks)
      for (let i = 0; i < perK; i++)
        main.push({
          id: `main-k${k}-t${task}-${i}`,
          phase: 'main',
          k,
          task,
          seed: study.uint32(),
          gold: study.pick(WORDS),
        });
  const extra = (phase: 'practice' | 'check', n: number): Item[] =>
    Array.from({ length: n }, (_, i) => ({
      id: `${phase}-${i}`,
      phase,
      k: ks[0]!,
      task: tasks[0]!,
      seed: study.uint32(),
      gold: study.pick(WORDS),
    }));
  const practice = extra('practice', 2);
  const checks = extra('check', 3);
  // Items differ in difficulty too, so the per-item view has something to show.
  const itemShift = new Map(main.map((it) => [it.id, 0.5 * normal(study)]));

  const start0 = Date.UTC(2026, 2, 2, 9, 0, 0);
  for (let p = 1; p <= options.participants; p++) {
    const rng = createRng(options.seed, 'participant', p);
    const condition = p % 2 === 1 ? 'untimed' : 'timed-90';
    const limit = condition === 'untimed' ? null : 90;
    const session_id = `fx-${String(p).padStart(2, '0')}-${hex(rng, 8)}`;
    const participant_id = p === FIXTURE_ROLES.formulaId ? `@p${p}` : hex(rng, 24);
    const ability = 0.8 * normal(rng);
    const slowness = Math.exp(0.25 * normal(rng)) * (FIXTURE_ROLES.timeouts.includes(p) ? 2.6 : 1);
    const ratingBias = 0.5 * normal(rng);
    const order = rng.shuffle([...main]);
    // Checks spread through the main trials (after the 1st, 2nd and 3rd quarter).
    const sequence: Item[] = [...practice];
    order.forEach((it, i) => {
      sequence.push(it);
      const q = Math.floor(order.length / 4);
      if (q > 0 && (i + 1) % q === 0 && (i + 1) / q <= checks.length) sequence.push(checks[(i + 1) / q - 1]!);
    });
    let clock = start0 + (p - 1) * 7 * 60_000 + rng.int(60_000);
    sessions.push({
      study_id: 'fixture-study',
      session_id,
      participant_id,
      condition,
      user_agent:
        p % 3 === 0 ? 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)' : 'Mozilla/5.0 (X11; Linux x86_64)',
      screen: p % 3 === 0 ? '390x844@3' : '1920x1080@1',
      started_at: new Date(clock).toISOString(),
    });
    let checkMisses = FIXTURE_ROLES.checks.includes(p) ? (p === 7 ? 1 : 2) : 0;
    sequence.forEach((it, trial_index) => {
      let pCorrect: number;
      if (it.phase === 'check') pCorrect = checkMisses > 0 ? 0 : 0.99;
      else {
        const base = PAPER_ACCURACY[it.k] ?? 0.4;
        pCorrect = logistic(
          logit(base) + ability + (itemShift.get(it.id) ?? 0) - (it.task === 2 ? 0.3 : 0) - (limit ? 0.2 : 0),
        );
      }
      const rt = Math.round(22_000 * 1.3 ** (it.k - 2) * slowness * Math.exp(0.4 * normal(rng)));
      const timedOut = limit !== null && rt > limit * 1000;
      let correct = !timedOut && rng.chance(pCorrect);
      if (it.phase === 'check' && checkMisses > 0) {
        checkMisses--;
        correct = false;
      }
      const response = timedOut ? '' : correct ? it.gold : rng.pick(WORDS.filter((w) => w !== it.gold));
      const rt_ms = timedOut ? limit * 1000 : rt;
      const rating = Math.round((PAPER_DIFFICULTY[it.k] ?? 4) + ratingBias + 0.8 * normal(rng));
      const away = FIXTURE_ROLES.hidden.includes(p) && rng.chance(0.3);
      const hidden_ms = away ? 40_000 + rng.int(80_000) : rng.chance(0.04) ? rng.int(4000) : 0;
      const started = clock;
      clock += rt_ms + hidden_ms + 1500 + rng.int(2000);
      const a = rng.pick(NAMES);
      const b = rng.pick(NAMES.filter((n) => n !== a));
      rows.push({
        study_id: 'fixture-study',
        session_id,
        participant_id,
        condition,
        trial_index,
        phase: it.phase,
        puzzle_id: it.id,
        seed: it.seed,
        k: it.k,
        task: it.task,
        strict: false,
        query_a: a,
        query_b: b,
        gold: it.gold,
        response,
        correct,
        difficulty: timedOut ? null : Math.min(5, Math.max(1, rating)),
        rt_ms,
        ended_on: timedOut ? 'timeout' : 'response',
        time_limit_s: limit,
        answer_changes: timedOut ? 0 : rng.int(3),
        hidden_ms,
        resumed: rng.chance(0.01),
        started_at: new Date(started).toISOString(),
        answered_at: new Date(started + rt_ms + hidden_ms).toISOString(),
        story: `[${a}] went out with "the family", as ${it.id} tells it; [${b}] came too.`,
        prolific_study_id: '',
        prolific_session_id: '',
      });
    });
  }
  return { rows, sessions };
}

/** The e2e fixture files: participants 1–30 as CSV, 26–50 as JSON (26–30 in both, to dedupe). */
export function resultsFixtureFiles(): { csv: string; json: string } {
  const { rows, sessions } = makeResultsFixture({ seed: 'results-fixture', participants: 50 });
  const ids = sessions.map((s) => s.session_id);
  const part = (from: number, to: number) => {
    const keep = new Set(ids.slice(from - 1, to));
    return {
      rows: rows.filter((r) => keep.has(r.session_id)),
      sessions: sessions.filter((s) => keep.has(s.session_id)),
    };
  };
  const a = part(1, 30);
  const b = part(26, 50);
  return { csv: rowsToCsv(a.rows, a.sessions), json: rowsToJson(b.rows, b.sessions) };
}
