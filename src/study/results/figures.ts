/**
 * The results dashboard's figures (`src/features/results`), pure, so the results worker computes
 * them off the page's thread: accuracy, response time and difficulty per group (k, task or
 * condition) with trial-level and participant-clustered 95% intervals, per-participant summaries
 * with flags, per-item summaries, and the aggregated table as CSV.
 *
 * What counts: main trials only. Practice trials teach the task and attention checks test
 * attention, so neither goes into a figure (checks feed the flags). A timeout counts as a wrong
 * answer for accuracy (the participant did not solve the puzzle in the time given) and has no
 * response time or rating.
 *
 * Resumed trials (interrupted and shown again) count like any other, but every group, item and
 * participant also carries how many it holds and, when it holds any, its figures without them
 * (`withoutResumed`), so the page can include, mark or leave them out (`resumed.ts`) without
 * asking the worker again.
 *
 * Every interval stays on its measure's scale (`INTERVAL_METHODS`, shown under the table and the
 * charts): accuracy in [0, 1] (Wilson), response time above 0 (geometric mean, t interval on log
 * time), difficulty in [1, 5] (t interval on the logit of the mean's place on the scale); the
 * participant bootstrap resamples on the same scales, so it cannot leave them either.
 */
import { writeCsv } from '../../core/formats/csv';
import { createRng } from '../../core/random/rng';
import { spreadsheetSafe, type ResultRow } from './results';
import {
  boundedMeanT,
  clusterBootstrap,
  clusteringMatters,
  clustersOf,
  clusterWidthRatio,
  mapInterval,
  median,
  meanT,
  MIN_RT_S,
  wilson,
  type Interval,
} from './stats';
import { PAPER_TABLE3 } from './paper';
import { withoutResumed, type ResumedMode } from './resumed';

export type GroupBy = 'k' | 'task' | 'condition' | 'condition-k';

export const GROUP_BY_LABEL: Record<GroupBy, string> = {
  k: 'k (story length)',
  task: 'task',
  condition: 'condition',
  'condition-k': 'condition and k',
};

/** The possible range of each measure (the charts' axes never leave it). */
export const SCALE = {
  accuracy: [0, 1],
  rt: [0, Infinity],
  difficulty: [1, 5],
} as const satisfies Record<string, readonly [number, number]>;

export type Measure = keyof typeof SCALE;

/** What each measure's estimate and intervals are: shown under the table, in the charts' descriptions and the CSV. */
export const INTERVAL_METHODS: Record<Measure, string> & { readonly clustered: string } = {
  accuracy: 'Accuracy: proportion correct, 95% Wilson interval',
  rt: 'Response time: geometric mean in seconds, 95% t interval on log response time, back-transformed',
  difficulty: 'Difficulty: mean rating, 95% t interval on the logit of (rating − 1)/4, back-transformed to 1–5',
  clustered:
    'By participant: 95% percentile bootstrap resampling whole participants (2,000 draws, seeded), on the same scales (log time for response time)',
};

/** One measure of one group. */
export interface Figure {
  /** Trials behind it. */
  readonly n: number;
  /** Wilson (accuracy), t on log time (response time), t on the logit scale (difficulty); trials as independent. */
  readonly interval: Interval;
  /** Percentile bootstrap over participants (whole participants resampled). */
  readonly clustered: Interval;
  /** Width of the clustered interval over the trial-level one. */
  readonly ratio: number;
  /** The clustered interval is at least CLUSTER_NOTE_RATIO times as wide: read that one. */
  readonly clusteringMatters: boolean;
}

/** A group's figures from its trials (all of them, or those not resumed). */
export interface GroupFigures {
  readonly participants: number;
  readonly trials: number;
  readonly timeouts: number;
  /** Proportion correct (timeouts wrong). */
  readonly accuracy: Figure;
  /** Response time in seconds, answered trials. */
  readonly rt: Figure;
  /** Difficulty rating 1–5, rated trials. */
  readonly difficulty: Figure;
}

/** How many resumed trials each of a group's figures holds. */
export interface ResumedCounts {
  /** Among its trials (accuracy). */
  readonly trials: number;
  /** Among its answered trials (response time). */
  readonly rt: number;
  /** Among its rated trials (difficulty). */
  readonly difficulty: number;
}

export interface GroupRow extends GroupFigures {
  readonly key: string;
  /** Where the group sits on a chart's x axis: the key, or k when split by condition. */
  readonly band: string;
  /** The chart series the group belongs to (the condition when grouping by condition and k). */
  readonly series: string | null;
  /** The group's value as a number when grouping by k or task (sorting, the paper's row). */
  readonly value: number | null;
  /** Table 3's figures for this k (grouping by k, or by condition and k; k = 2..6). */
  readonly paper: { readonly accuracy: number; readonly difficulty: number; readonly difficultySd: number } | null;
  /** Resumed trials among the figures' trials (in a view that leaves them out: the ones left out). */
  readonly resumed: ResumedCounts;
  /** The figures without the resumed trials, seeded as the group's own; null when it holds none. */
  readonly withoutResumed: GroupFigures | null;
}

const keyOf = (row: ResultRow, by: GroupBy): string =>
  by === 'condition-k' ? `${row.condition} k=${row.k}` : String(row[by]);

/** Main trials, without the sessions in `exclude`. */
export function mainRows(rows: readonly ResultRow[], exclude: ReadonlySet<string> = new Set()): ResultRow[] {
  return rows.filter((r) => r.phase === 'main' && !exclude.has(r.session_id));
}

function figure(
  items: readonly ResultRow[],
  value: (r: ResultRow) => number,
  trialLevel: (values: number[]) => Interval,
  seed: readonly (string | number)[],
  /** Figures computed on a transformed scale (log time) come back through this (exp). */
  back?: (v: number) => number,
): Figure {
  const values = items.map(value);
  const interval = trialLevel(values);
  const onScale = clusterBootstrap(
    clustersOf(items, (r) => r.session_id, value),
    createRng('results-dashboard', ...seed),
  );
  const clustered = back ? mapInterval(onScale, back) : onScale;
  const ratio = clusterWidthRatio(interval, clustered);
  return { n: values.length, interval, clustered, ratio, clusteringMatters: clusteringMatters(ratio) };
}

const proportion = (values: number[]) =>
  wilson(
    values.reduce((s, v) => s + v, 0),
    values.length,
  );

const ratingT = (values: number[]) => boundedMeanT(values, SCALE.difficulty[0], SCALE.difficulty[1]);

const answeredOnly = (r: ResultRow) => r.ended_on === 'response';
const ratedOnly = (r: ResultRow) => r.difficulty !== null;

/** ln of a response time in seconds, a 0 ms time taken as 1 ms (as `geometricMeanT` does). */
const logTime = (r: ResultRow) => Math.log(Math.max(MIN_RT_S, r.rt_ms / 1000));
/** `geometricMeanT` of the times whose logs these are. */
const logT = (logs: number[]) => mapInterval(meanT(logs), Math.exp);

/**
 * The figures per group, groups in natural order (numbers ascending, text alphabetically). Each
 * bootstrap draws from its own stream (seeded by grouping, group and measure), so the same files
 * give the same intervals every time, whatever else is on the page.
 */
export function aggregate(rows: readonly ResultRow[], by: GroupBy, exclude?: ReadonlySet<string>): GroupRow[] {
  const groups = new Map<string, ResultRow[]>();
  for (const r of mainRows(rows, exclude)) {
    const key = keyOf(r, by);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(r);
  }
  const numeric = by === 'k' || by === 'task';
  const first = new Map([...groups].map(([key, g]) => [key, g[0]!]));
  const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const keys = [...groups.keys()].sort((a, b) =>
    numeric
      ? Number(a) - Number(b)
      : by === 'condition-k'
        ? text(first.get(a)!.condition, first.get(b)!.condition) || first.get(a)!.k - first.get(b)!.k
        : text(a, b),
  );
  return keys.map((key): GroupRow => {
    const g = groups.get(key)!;
    const value = numeric ? Number(key) : by === 'condition-k' ? first.get(key)!.k : null;
    const paper =
      (by === 'k' || by === 'condition-k') && value !== null ? (PAPER_TABLE3.find((p) => p.k === value) ?? null) : null;
    const resumed = g.filter((r) => r.resumed);
    return {
      key,
      band: by === 'condition-k' ? String(value) : key,
      series: by === 'condition-k' ? first.get(key)!.condition : null,
      value,
      ...groupFigures(g, by, key),
      paper: paper
        ? { accuracy: paper.accuracy, difficulty: paper.difficulty, difficultySd: paper.difficultySd }
        : null,
      resumed: {
        trials: resumed.length,
        rt: resumed.filter(answeredOnly).length,
        difficulty: resumed.filter(ratedOnly).length,
      },
      // Same seeds as the group's own figures: leaving them out gives what a file without them would.
      withoutResumed: resumed.length ? groupFigures(withoutResumed(g), by, key) : null,
    };
  });
}

/** The figures of one group's trials; each bootstrap seeded by grouping, group and measure. */
function groupFigures(g: readonly ResultRow[], by: GroupBy, key: string): GroupFigures {
  return {
    participants: new Set(g.map((r) => r.session_id)).size,
    trials: g.length,
    timeouts: g.filter((r) => r.ended_on === 'timeout').length,
    accuracy: figure(g, (r) => (r.correct ? 1 : 0), proportion, [by, key, 'accuracy']),
    // On log time, trial-level and by participant alike; exp brings both back to seconds.
    rt: figure(g.filter(answeredOnly), logTime, logT, [by, key, 'rt'], Math.exp),
    difficulty: figure(g.filter(ratedOnly), (r) => r.difficulty!, ratingT, [by, key, 'difficulty']),
  };
}

/** When a participant is flagged. Shown on the page next to the flags. */
export const FLAG_RULES = {
  /** Any attention check answered wrong (or not answered). */
  failedChecks: 1,
  /** At least this share of main and check trials ended by the time limit. */
  timeoutShare: 0.25,
  /** At least this much time in another tab over the whole run. */
  hiddenMs: 60_000,
} as const;

export type Flag = 'checks' | 'timeouts' | 'hidden';

export const FLAG_TEXT: Record<Flag, string> = {
  checks: 'failed attention check',
  timeouts: 'timed out often',
  hidden: 'left the tab for long',
};

/** A participant's figures from their main trials (all of them, or those not resumed). */
export interface ParticipantFigures {
  readonly mainTrials: number;
  readonly correct: number;
  readonly accuracy: number;
  /** Median response time of answered main trials, seconds. */
  readonly medianRt: number;
  readonly meanDifficulty: number;
}

export interface ParticipantRow extends ParticipantFigures {
  readonly session_id: string;
  readonly participant_id: string;
  readonly condition: string;
  readonly checks: number;
  readonly checksFailed: number;
  /** Timeouts over main and check trials. */
  readonly timeouts: number;
  readonly timeoutShare: number;
  readonly hiddenMs: number;
  /** Resumed main and check trials. */
  readonly resumed: number;
  /** The figures without resumed main trials; null when none was resumed. Flags always count every trial. */
  readonly withoutResumed: ParticipantFigures | null;
  readonly flags: readonly Flag[];
}

const meanOf = (xs: readonly number[]) => (xs.length ? xs.reduce((s, v) => s + v, 0) / xs.length : NaN);

function participantFigures(main: readonly ResultRow[]): ParticipantFigures {
  const correct = main.filter((r) => r.correct).length;
  return {
    mainTrials: main.length,
    correct,
    accuracy: main.length ? correct / main.length : NaN,
    medianRt: median(main.filter(answeredOnly).map((r) => r.rt_ms / 1000)),
    meanDifficulty: meanOf(main.flatMap((r) => (r.difficulty === null ? [] : [r.difficulty]))),
  };
}

/** One line per session (practice left out), in session order. */
export function participants(rows: readonly ResultRow[]): ParticipantRow[] {
  const by = new Map<string, ResultRow[]>();
  for (const r of rows) {
    if (r.phase === 'practice') continue;
    let g = by.get(r.session_id);
    if (!g) by.set(r.session_id, (g = []));
    g.push(r);
  }
  return [...by.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([session_id, g]): ParticipantRow => {
      const main = g.filter((r) => r.phase === 'main');
      const checks = g.filter((r) => r.phase === 'check');
      const checksFailed = checks.filter((r) => !r.correct).length;
      const timeouts = g.filter((r) => r.ended_on === 'timeout').length;
      const timeoutShare = g.length ? timeouts / g.length : 0;
      const hiddenMs = g.reduce((s, r) => s + r.hidden_ms, 0);
      const flags: Flag[] = [];
      if (checksFailed >= FLAG_RULES.failedChecks) flags.push('checks');
      if (timeoutShare >= FLAG_RULES.timeoutShare) flags.push('timeouts');
      if (hiddenMs >= FLAG_RULES.hiddenMs) flags.push('hidden');
      return {
        session_id,
        participant_id: g[0]!.participant_id,
        condition: g[0]!.condition,
        ...participantFigures(main),
        checks: checks.length,
        checksFailed,
        timeouts,
        timeoutShare,
        hiddenMs,
        resumed: g.filter((r) => r.resumed).length,
        withoutResumed: main.some((r) => r.resumed) ? participantFigures(withoutResumed(main)) : null,
        flags,
      };
    });
}

/** An item's figures from its answers (all of them, or those not resumed). */
export interface ItemFigures {
  readonly n: number;
  readonly accuracy: Interval;
  readonly meanRt: number;
  readonly meanDifficulty: number;
  /** The wrong answer given most often, with its count; null when nobody was wrong with an answer. */
  readonly commonError: { readonly word: string; readonly count: number } | null;
}

export interface ItemRow extends ItemFigures {
  readonly puzzle_id: string;
  readonly phase: ResultRow['phase'];
  readonly k: number;
  readonly task: number;
  readonly gold: string;
  /** Resumed answers among `n` (in a view that leaves them out: the ones left out). */
  readonly resumed: number;
  /** The figures without the resumed answers; null when none was resumed. */
  readonly withoutResumed: ItemFigures | null;
}

function itemFigures(g: readonly ResultRow[]): ItemFigures {
  const wrong = new Map<string, number>();
  for (const r of g) if (!r.correct && r.response) wrong.set(r.response, (wrong.get(r.response) ?? 0) + 1);
  const top = [...wrong.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  return {
    n: g.length,
    accuracy: wilson(g.filter((r) => r.correct).length, g.length),
    meanRt: meanOf(g.filter(answeredOnly).map((r) => r.rt_ms / 1000)),
    meanDifficulty: meanOf(g.flatMap((r) => (r.difficulty === null ? [] : [r.difficulty]))),
    commonError: top ? { word: top[0], count: top[1] } : null,
  };
}

/** The items' order: main before checks, by k, hardest first, then by id. */
export const itemOrder = (a: ItemRow, b: ItemRow): number =>
  (a.phase === b.phase ? 0 : a.phase === 'main' ? -1 : 1) ||
  a.k - b.k ||
  a.accuracy.estimate - b.accuracy.estimate ||
  (a.puzzle_id < b.puzzle_id ? -1 : 1);

/** One line per puzzle (main and check; practice left out), by k, then accuracy ascending. */
export function items(rows: readonly ResultRow[], exclude: ReadonlySet<string> = new Set()): ItemRow[] {
  const by = new Map<string, ResultRow[]>();
  for (const r of rows) {
    if (r.phase === 'practice' || exclude.has(r.session_id)) continue;
    let g = by.get(r.puzzle_id);
    if (!g) by.set(r.puzzle_id, (g = []));
    g.push(r);
  }
  return [...by.values()]
    .map((g): ItemRow => {
      const first = g[0]!;
      const resumed = g.filter((r) => r.resumed).length;
      return {
        puzzle_id: first.puzzle_id,
        phase: first.phase,
        k: first.k,
        task: first.task,
        gold: first.gold,
        ...itemFigures(g),
        resumed,
        withoutResumed: resumed ? itemFigures(withoutResumed(g)) : null,
      };
    })
    .sort(itemOrder);
}

/** A number for the CSV: fixed decimals, empty when undefined. */
const num = (v: number | null | undefined, digits: number) =>
  v === null || v === undefined || !Number.isFinite(v) ? '' : v.toFixed(digits);

export const TABLE_CSV_COLUMNS = [
  'group_by',
  'group',
  'participants',
  'trials',
  'timeouts',
  'accuracy',
  'accuracy_lo',
  'accuracy_hi',
  'accuracy_cluster_lo',
  'accuracy_cluster_hi',
  'rt_n',
  'rt_geomean_s',
  'rt_lo',
  'rt_hi',
  'rt_cluster_lo',
  'rt_cluster_hi',
  'difficulty_n',
  'difficulty_mean',
  'difficulty_lo',
  'difficulty_hi',
  'difficulty_cluster_lo',
  'difficulty_cluster_hi',
  'paper_accuracy',
  'paper_difficulty',
  'paper_difficulty_sd',
] as const;

/** Columns the export adds when resumed trials are marked (how many each figure holds) or left out. */
export const RESUMED_CSV_COLUMNS = {
  include: [],
  mark: ['resumed_trials', 'resumed_rt_n', 'resumed_difficulty_n'],
  omit: ['resumed_left_out'],
} as const satisfies Record<ResumedMode, readonly string[]>;

/**
 * The aggregated table as CSV: the figures as shown (accuracy to 4 decimals, times to 3, ratings
 * to 3), intervals as lo/hi pairs, the paper's figures where they apply; every cell through
 * spreadsheetSafe (a condition id is the researcher's text). `groups` are the ones shown (for
 * `omit`, `groupsShown`'s); `resumed` adds its columns, none for `include`.
 */
export function tableToCsv(groups: readonly GroupRow[], by: GroupBy, resumed: ResumedMode = 'include'): string {
  const fig = (f: Figure, d: number) => [
    num(f.interval.estimate, d),
    num(f.interval.lo, d),
    num(f.interval.hi, d),
    num(f.clustered.lo, d),
    num(f.clustered.hi, d),
  ];
  const extra = (g: GroupRow): number[] =>
    resumed === 'mark'
      ? [g.resumed.trials, g.resumed.rt, g.resumed.difficulty]
      : resumed === 'omit'
        ? [g.resumed.trials]
        : [];
  const records = [
    [...TABLE_CSV_COLUMNS, ...RESUMED_CSV_COLUMNS[resumed]],
    ...groups.map((g) =>
      [
        by,
        g.key,
        String(g.participants),
        String(g.trials),
        String(g.timeouts),
        ...fig(g.accuracy, 4),
        String(g.rt.n),
        ...fig(g.rt, 3),
        String(g.difficulty.n),
        ...fig(g.difficulty, 3),
        num(g.paper?.accuracy, 3),
        num(g.paper?.difficulty, 2),
        num(g.paper?.difficultySd, 2),
        ...extra(g).map(String),
      ].map(spreadsheetSafe),
    ),
  ];
  return writeCsv(records, { lineEnding: '\r\n' });
}

/** A main item people answered: the puzzle as recorded, and how people did on it. */
export interface AnsweredItem {
  /** `puzzle_id|seed|k|task|strict`: one puzzle as shown (ids repeat across studies). */
  readonly key: string;
  readonly puzzle_id: string;
  readonly seed: number;
  readonly k: number;
  readonly task: ResultRow['task'];
  readonly strict: boolean;
  readonly query_a: string;
  readonly query_b: string;
  readonly gold: string;
  /** The story as the person read it (no brackets). */
  readonly story: string;
  /** People's answers (trials, timeouts counted wrong) and how many were right. */
  readonly answers: number;
  readonly correct: number;
  /** Of those, the resumed answers and how many of them were right. */
  readonly resumedAnswers: number;
  readonly resumedCorrect: number;
}

export const itemKey = (r: Pick<ResultRow, 'puzzle_id' | 'seed' | 'k' | 'task' | 'strict'>): string =>
  `${r.puzzle_id}|${r.seed}|${r.k}|${r.task}|${r.strict}`;

/**
 * The main items of `rows` (practice and attention checks left out: a check's gold is the word
 * its instruction asks for, not the puzzle's answer), by k, then puzzle id.
 */
export function answeredItems(rows: readonly ResultRow[]): AnsweredItem[] {
  const by = new Map<
    string,
    { first: ResultRow; answers: number; correct: number; resumedAnswers: number; resumedCorrect: number }
  >();
  for (const r of rows) {
    if (r.phase !== 'main') continue;
    const key = itemKey(r);
    let g = by.get(key);
    if (!g) by.set(key, (g = { first: r, answers: 0, correct: 0, resumedAnswers: 0, resumedCorrect: 0 }));
    g.answers++;
    if (r.correct) g.correct++;
    if (r.resumed) {
      g.resumedAnswers++;
      if (r.correct) g.resumedCorrect++;
    }
  }
  return [...by.entries()]
    .map(([key, { first: r, answers, correct, resumedAnswers, resumedCorrect }]) => ({
      key,
      puzzle_id: r.puzzle_id,
      seed: r.seed,
      k: r.k,
      task: r.task,
      strict: r.strict,
      query_a: r.query_a,
      query_b: r.query_b,
      gold: r.gold,
      story: r.story,
      answers,
      correct,
      resumedAnswers,
      resumedCorrect,
    }))
    .sort((a, b) => a.k - b.k || (a.puzzle_id < b.puzzle_id ? -1 : a.puzzle_id > b.puzzle_id ? 1 : 0));
}

/**
 * The groups a mode shows: for `omit`, each group's figures without its resumed trials (a group
 * of resumed trials only is dropped), `resumed` then counting the ones left out; otherwise the
 * groups as they are.
 */
export function groupsShown(groups: readonly GroupRow[], mode: ResumedMode): readonly GroupRow[] {
  if (mode !== 'omit') return groups;
  return groups.flatMap((g) =>
    g.withoutResumed === null ? [g] : g.withoutResumed.trials === 0 ? [] : [{ ...g, ...g.withoutResumed }],
  );
}

/** The items a mode shows: for `omit`, without their resumed answers, in the items' order again. */
export function itemsShown(list: readonly ItemRow[], mode: ResumedMode): readonly ItemRow[] {
  if (mode !== 'omit') return list;
  return list
    .flatMap((it) =>
      it.withoutResumed === null ? [it] : it.withoutResumed.n === 0 ? [] : [{ ...it, ...it.withoutResumed }],
    )
    .sort(itemOrder);
}

/** The participants a mode shows: for `omit`, their figures without resumed main trials (flags unchanged). */
export function participantsShown(people: readonly ParticipantRow[], mode: ResumedMode): readonly ParticipantRow[] {
  if (mode !== 'omit') return people;
  return people.map((p) => (p.withoutResumed === null ? p : { ...p, ...p.withoutResumed }));
}

/** The answered items a mode shows: for `omit`, people's answers without the resumed ones. */
export function answeredShown(list: readonly AnsweredItem[], mode: ResumedMode): readonly AnsweredItem[] {
  if (mode !== 'omit') return list;
  return list.flatMap((it) =>
    it.resumedAnswers === 0
      ? [it]
      : it.resumedAnswers === it.answers
        ? []
        : [
            {
              ...it,
              answers: it.answers - it.resumedAnswers,
              correct: it.correct - it.resumedCorrect,
              resumedAnswers: 0,
              resumedCorrect: 0,
            },
          ],
  );
}
