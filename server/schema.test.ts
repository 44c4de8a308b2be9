import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RESULT_COLUMNS } from '../src/study/results/results';
import { parseIngestBody, resultRowSchema, sessionInfoSchema } from './schema';
import { makeRow, makeSession } from './testServer';

// The schemas as they were written by hand before they were derived from RESULT_FIELDS: the
// derived ones must accept and refuse the same values with the same messages.
const id = z.string().min(1).max(200);
const text = (max: number) => z.string().max(max);
const whole = (min: number, max: number) => z.number().int().min(min).max(max);
const time = z.string().max(40);

const handWrittenRowSchema = z.strictObject({
  study_id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'not a study id'),
  session_id: id,
  participant_id: text(200),
  condition: text(64),
  trial_index: whole(0, 100_000),
  phase: z.enum(['practice', 'main', 'check']),
  puzzle_id: text(200),
  seed: whole(0, 0xffff_ffff),
  k: whole(1, 20),
  task: z.literal([1, 2, 3, 4, 5, 6, 7]),
  strict: z.boolean(),
  query_a: text(200),
  query_b: text(200),
  gold: text(100),
  response: text(100),
  correct: z.boolean(),
  difficulty: whole(1, 5).nullable(),
  rt_ms: whole(0, 1e10),
  ended_on: z.enum(['response', 'timeout', 'skipped']),
  time_limit_s: whole(1, 1e7).nullable(),
  answer_changes: whole(0, 1e6),
  hidden_ms: whole(0, 1e10),
  resumed: z.boolean(),
  started_at: time,
  answered_at: time,
  story: text(20_000),
  prolific_study_id: text(200),
  prolific_session_id: text(200),
  // Added with issue 32 (the adaptive estimate): a page loaded before sends none of them.
  threshold_k: z.number().min(-10).max(40).nullable().default(null),
  threshold_low: z.number().min(-10).max(40).nullable().default(null),
  threshold_high: z.number().min(-10).max(40).nullable().default(null),
  adaptive_procedure: z.enum(['', 'staircase', 'quest']).default(''),
  adaptive_stop: z.enum(['', 'trials', 'interval']).default(''),
});

const handWrittenSessionSchema = z.strictObject({
  study_id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'not a study id'),
  session_id: id,
  participant_id: text(200),
  condition: text(64),
  user_agent: text(1000),
  screen: text(100),
  started_at: time,
});

/** Values around every bound of every column, and values of the wrong type. */
const PROBES: readonly unknown[] = [
  ...[0, 1, 39, 40, 41, 63, 64, 65, 99, 100, 101, 199, 200, 201, 999, 1000, 1001, 19_999, 20_000, 20_001].map((n) =>
    'a'.repeat(n),
  ),
  'a b',
  'a-b_C9',
  'practice',
  'main',
  'check',
  'response',
  'timeout',
  'skipped',
  '1',
  'true',
  -1,
  0,
  0.5,
  1,
  1.5,
  5,
  6,
  7,
  8,
  20,
  21,
  100_000,
  100_001,
  1e6,
  1e6 + 1,
  1e7,
  1e7 + 1,
  1e10,
  1e10 + 1,
  0xffff_ffff,
  2 ** 32,
  NaN,
  Infinity,
  null,
  true,
  false,
  undefined,
  [],
  {},
];

/** What a schema makes of a value: the parsed value, or every issue with its code, path and message. */
function outcome(schema: z.ZodType, value: unknown) {
  const r = schema.safeParse(value);
  return r.success
    ? { ok: r.data }
    : { issues: r.error.issues.map((i) => ({ code: i.code, path: i.path, message: i.message })) };
}

describe('resultRowSchema, derived from RESULT_FIELDS', () => {
  it('accepts and refuses every probe as the hand-written schema did, with the same messages', () => {
    const row = makeRow('lab', 's', 3);
    for (const column of RESULT_COLUMNS) {
      for (const value of PROBES) {
        const probe = { ...row, [column]: value };
        expect(outcome(resultRowSchema, probe), `${column} = ${String(value).slice(0, 20)}`).toEqual(
          outcome(handWrittenRowSchema, probe),
        );
      }
    }
    const { k: _k, ...missing } = row;
    expect(outcome(resultRowSchema, missing)).toEqual(outcome(handWrittenRowSchema, missing));
    expect(outcome(resultRowSchema, { ...row, extra: 1 })).toEqual(outcome(handWrittenRowSchema, { ...row, extra: 1 }));
  });

  it('takes a row from a page loaded before the estimate columns, reading them as empty', () => {
    const row = makeRow('lab', 's', 0);
    const {
      threshold_k: _a,
      threshold_low: _b,
      threshold_high: _c,
      adaptive_procedure: _d,
      adaptive_stop: _e,
      ...before
    } = row;
    expect(resultRowSchema.parse(before)).toEqual(row);
    expect(parseIngestBody(JSON.stringify({ sessions: [], rows: [before] }))).toEqual({
      ok: true,
      value: { sessions: [], rows: [row] },
    });
  });

  it('keeps the messages a client is told', () => {
    const body = (over: object) => JSON.stringify({ sessions: [], rows: [makeRow('lab', 's', 0, over)] });
    expect(parseIngestBody(body({ study_id: 'a b' }))).toEqual({
      ok: false,
      message: 'rows.0.study_id: not a study id',
    });
    expect(parseIngestBody(body({ k: 21 }))).toEqual({
      ok: false,
      message: 'rows.0.k: Too big: expected number to be <=20',
    });
    expect(parseIngestBody(body({ phase: 'warmup' }))).toEqual({
      ok: false,
      message: 'rows.0.phase: Invalid option: expected one of "practice"|"main"|"check"',
    });
  });

  it('checks the session facts a row shares with the row', () => {
    const session = makeSession('lab', 's');
    for (const field of Object.keys(session)) {
      for (const value of PROBES) {
        const probe = { ...session, [field]: value };
        expect(outcome(sessionInfoSchema, probe), `${field}`).toEqual(outcome(handWrittenSessionSchema, probe));
      }
    }
  });
});
