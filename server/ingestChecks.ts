/**
 * What a participant's request must be before it is stored (`POST api/rows`): rows and session
 * records of sessions this server issued carry their secret and agree with the session's
 * schedule, which is rebuilt from the registered definition, and with the puzzle each trial had
 * (rowChecks.ts); a study in `issued` mode takes no other session; a closed or full study takes
 * no new browser-made session; rows of browser-made sessions are checked against what the
 * definition alone fixes.
 */
import type { StudyDefinition } from '../src/study/definition/definition';
import type { ResultRow, SessionInfo } from '../src/study/results/results';
import { type EarlierRow, isLiveReview, kindSpec, MissingRowsError } from '../src/study/kinds';
import { scheduleParticipant, type ParticipantSchedule } from '../src/study/schedule/schedule';
import type { ReviewQueue } from './reviewQueue';
import { sessionRows, timeProblem, TrialFacts } from './rowChecks';
import type { IngestBody } from './schema';
import {
  CLOSED_MESSAGE,
  FULL_MESSAGE,
  sameSecret,
  type AccessState,
  type IssuedRow,
  type Refusal,
} from './sessionRecords';

/** What the checks read of the sessions and studies (StudyAccess and its database). */
export interface IngestLookups {
  definition(studyId: string): { token: string; def: StudyDefinition } | undefined;
  state(studyId: string): AccessState | undefined;
  issued(sessionId: string): IssuedRow | undefined;
  /** Has this session id any record here (session, row or issued)? */
  known(sessionId: string): boolean;
  /** The stored rows of a session, as an adaptive study's next item depends on them (place, phase, k, outcome). */
  history(sessionId: string): readonly EarlierRow[];
  /** Browser-made sessions of a study so far. */
  browserSessions(studyId: string): number;
  readonly reviews: ReviewQueue;
  now(): Date;
}

export class IngestChecks {
  /** Schedules of issued sessions, by session id (bounded; rebuilt when dropped). */
  private readonly schedules = new Map<string, ParticipantSchedule>();
  /** The puzzles of the studies' items, rebuilt to check rows against (rowChecks.ts). */
  private readonly facts = new TrialFacts();

  constructor(private readonly look: IngestLookups) {}

  /**
   * Checks a participant's request before it is stored: sessions the server issued carry their
   * secret and agree with their schedule; a study in `issued` mode takes no other session; a
   * closed or full study takes no new browser-made session. Returns the first refusal, or the
   * issued sessions among the rows that had given their places back (to be reclaimed). Unknown
   * studies are left to the store (403 there).
   */
  check(body: IngestBody): { readonly refusal: Refusal } | { readonly released: readonly IssuedRow[] } {
    const secrets = new Map((body.secrets ?? []).map((s) => [s.session_id, s.secret]));
    const fresh = new Set<string>();
    // The body's rows by session: an adaptive trial's item follows the rows before it, stored or sent with it.
    const sent = new Map<string, ResultRow[]>();
    for (const r of body.rows) {
      const list = sent.get(r.session_id);
      if (list) list.push(r);
      else sent.set(r.session_id, [r]);
    }
    // One look at each study's switches per request (a body may carry 200 rows).
    const states = new Map<string, AccessState | undefined>();
    const stateOf = (studyId: string) => {
      if (!states.has(studyId)) states.set(studyId, this.look.state(studyId));
      return states.get(studyId);
    };
    // One look at each session's record too: a body's rows mostly share one session.
    const records = new Map<string, IssuedRow | undefined>();
    const issuedOf = (sessionId: string) => {
      if (!records.has(sessionId)) records.set(sessionId, this.look.issued(sessionId));
      return records.get(sessionId);
    };
    const check = (where: string, r: ResultRow | SessionInfo): Refusal | undefined => {
      const state = stateOf(r.study_id);
      if (!state) return undefined;
      const issued = issuedOf(r.session_id);
      if (!issued) {
        if (state.sessions === 'issued') {
          return {
            status: 403,
            reason: 'not-issued',
            message: `${where}.session_id: the session "${r.session_id}" was not issued by this server; study "${r.study_id}" takes rows only of sessions its participants' pages asked for (POST api/sessions)`,
          };
        }
        if ((state.closed || state.max_sessions !== null) && !fresh.has(r.session_id)) {
          if (!this.look.known(r.session_id)) {
            if (state.closed) return { status: 403, reason: 'closed', message: CLOSED_MESSAGE };
            const n = this.look.browserSessions(r.study_id) + fresh.size;
            if (n >= state.max_sessions!) return { status: 403, reason: 'full', message: FULL_MESSAGE };
            fresh.add(r.session_id);
          }
        }
        // A browser-made session has no schedule here; what the definition alone fixes is checked.
        // A live review study's items come from the queue, which hands them to issued sessions only.
        if ('trial_index' in r && isLiveReview(this.look.definition(r.study_id)!.def)) {
          return {
            status: 403,
            reason: 'not-issued',
            message: `${where}.session_id: study "${r.study_id}" reviews stories handed out by this server, to sessions it issued (POST api/sessions); "${r.session_id}" is not one`,
          };
        }
        const problem = 'trial_index' in r ? this.definitionProblem(r) : undefined;
        return problem === undefined ? undefined : { status: 400, reason: 'invalid', message: `${where}.${problem}` };
      }
      const secret = secrets.get(r.session_id);
      if (secret === undefined || !sameSecret(secret, issued.secret)) {
        return {
          status: 403,
          reason: 'secret',
          message: `${where}.session_id: the secret of session "${r.session_id}" is ${secret === undefined ? 'missing (send it in "secrets")' : 'wrong'}`,
        };
      }
      if (issued.study_id !== r.study_id) {
        return {
          status: 403,
          reason: 'not-issued',
          message: `${where}.study_id: the session "${r.session_id}" was issued for study "${issued.study_id}"`,
        };
      }
      const problem =
        'trial_index' in r
          ? this.rowProblem(issued, r, sent.get(r.session_id) ?? [])
          : sessionProblem(issued, r, this.scheduleOf(issued));
      return problem === undefined ? undefined : { status: 400, reason: 'invalid', message: `${where}.${problem}` };
    };
    for (const [i, s] of body.sessions.entries()) {
      const refusal = check(`sessions.${i}`, s);
      if (refusal) return { refusal };
    }
    for (const [i, r] of body.rows.entries()) {
      const refusal = check(`rows.${i}`, r);
      if (refusal) return { refusal };
    }
    const released = new Set(body.rows.map((r) => r.session_id));
    return {
      released: [...records.values()].filter(
        (x) => x?.released_at != null && released.has(x.session_id),
      ) as IssuedRow[],
    };
  }

  /** The schedule of an issued session: what its rows must say, trial by trial. */
  private scheduleOf(issued: IssuedRow): ParticipantSchedule {
    const cached = this.schedules.get(issued.session_id);
    if (cached) return cached;
    const schedule = scheduleParticipant(this.look.definition(issued.study_id)!.def, {
      participantNumber: issued.participant,
      // A review study with embedded stories leaves out the participant's own (schedule.ts).
      participantId: issued.participant_id,
      sessionSeed: issued.session_id,
      forcedCondition: issued.condition ?? undefined,
    });
    if (this.schedules.size >= 10_000) this.schedules.delete(this.schedules.keys().next().value!);
    this.schedules.set(issued.session_id, schedule);
    return schedule;
  }

  /**
   * What is wrong with a row of a browser-made session by the study's definition alone: the
   * condition's time limit, k and task among the study's, strictness. (Its puzzle and trial count
   * need the schedule, which only an issued session has.)
   */
  private definitionProblem(row: ResultRow): string | undefined {
    const { def } = this.look.definition(row.study_id)!;
    const condition = def.conditions.find((c) => c.id === row.condition);
    // An unknown condition is the store's 400 (it names the study's conditions).
    if (!condition) return undefined;
    if (row.time_limit_s !== condition.perPuzzleLimitS) {
      return `time_limit_s: ${JSON.stringify(row.time_limit_s)} is not the time limit of condition "${condition.id}" (${JSON.stringify(condition.perPuzzleLimitS)})`;
    }
    if (!def.k.includes(row.k)) return `k: ${row.k} is not a k of study "${def.studyId}" (${def.k.join(', ')})`;
    if (!def.tasks.includes(row.task)) {
      return `task: ${row.task} is not a task of study "${def.studyId}" (${def.tasks.join(', ')})`;
    }
    if (row.strict !== def.strict) return `strict: the study's puzzles are ${def.strict ? '' : 'not '}strict`;
    return undefined;
  }

  /** What is wrong with a row of an issued session (`<field>: <problem>`), or undefined. */
  private rowProblem(issued: IssuedRow, row: ResultRow, sent: readonly ResultRow[]): string | undefined {
    const { def } = this.look.definition(issued.study_id)!;
    const schedule = this.scheduleOf(issued);
    const trial = schedule.trials[row.trial_index];
    if (!trial) {
      return `trial_index: ${row.trial_index} is past the session's last trial (${schedule.trials.length - 1})`;
    }
    const kind = kindSpec(def.kind);
    let item = trial.item;
    // An adaptive trial: its item is the one the session's earlier rows decide, replayed here.
    if (kind.follows?.placeholder(item)) {
      const earlier = sessionRows(this.look.history(issued.session_id), sent).filter(
        (r) => r.trial_index < row.trial_index,
      );
      let decided;
      try {
        decided = kind.follows.item(def, trial, earlier);
      } catch (e) {
        if (e instanceof MissingRowsError) return `trial_index: ${e.message}; send the rows in order`;
        throw e;
      }
      if (decided === null) {
        return `trial_index: the adaptive procedure of this session stopped before trial ${row.trial_index} (by its stopping rule); it has no such trial`;
      }
      for (const field of ['k', 'puzzle_id', 'seed', 'task'] as const) {
        const want = field === 'puzzle_id' ? decided.puzzleId : decided[field];
        if (row[field] !== want) {
          return `${field}: ${JSON.stringify(row[field])} is not what the adaptive procedure picks for trial ${row.trial_index} after this session's earlier answers (${JSON.stringify(want)}); the server replays it from the study seed and those answers`;
        }
      }
      item = decided;
    }
    // A live review study's main trials review the stories the queue handed this session: their
    // puzzle id, seed, k and the rest are the story's (checked below), not the schedule's.
    const reviewTrial = item.phase === 'main' && isLiveReview(def);
    const expected: Partial<Record<keyof ResultRow, string | number | boolean | null>> = {
      condition: schedule.condition.id,
      time_limit_s: schedule.condition.perPuzzleLimitS,
      // Items the page picked (clauses by the coverage it read, stories the queue handed out)
      // cannot be replayed here: the kind checks those rows on their own below.
      ...(kind.fixesItem(def, item) ? { puzzle_id: item.puzzleId, seed: item.seed, k: item.k } : {}),
      phase: item.phase,
      task: item.task,
      strict: def.strict,
      participant_id: issued.participant_id,
      prolific_study_id: issued.prolific_study_id,
      prolific_session_id: issued.prolific_session_id,
    };
    for (const [field, want] of Object.entries(expected) as [keyof ResultRow, unknown][]) {
      if (row[field] !== want) {
        return `${field}: ${JSON.stringify(row[field])} is not what trial ${row.trial_index} of this session has (${JSON.stringify(want)})`;
      }
    }
    const timing = timeProblem(row, issued.issued_at, this.look.now());
    if (timing) return timing;
    if (reviewTrial) return this.look.reviews.reviewRowProblem(issued.session_id, row);
    return kind.rowProblem(def, item, row, this.facts);
  }
}

function sessionProblem(issued: IssuedRow, s: SessionInfo, schedule: ParticipantSchedule): string | undefined {
  if (s.condition !== schedule.condition.id) {
    return `condition: "${s.condition}" is not this session's condition ("${schedule.condition.id}")`;
  }
  if (s.participant_id !== issued.participant_id) {
    return `participant_id: "${s.participant_id}" is not the participant this session was issued to`;
  }
  return undefined;
}
