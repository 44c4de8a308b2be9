/**
 * The designer's form: what the inputs hold (text, so a half-typed number stays on screen), the
 * study definition they describe, where each of checkStudyDefinition's problems is shown, the
 * summary, and the `study link` command line that makes the same link. Pure; no React.
 */
import {
  checkStudyDefinition,
  DEFAULT_CONDITION,
  DEFAULT_STUDY,
  type Display,
  mainItemCount,
  type StudyCondition,
  type StudyDefinition,
  type StudyProblem,
  type StudySink,
} from '../../study/definition';
import { sinkCliArgs } from '../../study/sinks';

export interface ConditionForm {
  /** React's key: stays with the row when another row is removed. */
  readonly key: number;
  readonly id: string;
  /** Seconds; empty for no limit. */
  readonly perPuzzleLimitS: string;
  readonly overallLimitS: string;
  readonly display: Display;
  readonly scratchpad: boolean;
}

export interface StudyForm {
  readonly studyId: string;
  readonly seed: string;
  /** Comma-separated. */
  readonly k: string;
  readonly tasks: string;
  readonly itemsPerK: string;
  readonly strict: boolean;
  readonly templateSplit: string;
  readonly practice: string;
  readonly attentionChecks: string;
  readonly orderMode: 'session' | 'counterbalanced';
  readonly orderLists: string;
  readonly conditions: readonly ConditionForm[];
  readonly assignment: string;
  readonly consentText: string;
  readonly instructionsText: string;
  readonly completionText: string;
  readonly breakEvery: string;
  readonly completionCode: string;
  readonly redirectUrl: string;
  readonly resumePolicy: string;
  readonly maxAgeMinutes: string;
  readonly jatos: boolean;
  /** The results server that serves this page (`npm run serve`): rows go to `api/rows` beside it. */
  readonly server: boolean;
  readonly httpSinks: readonly string[];
}

const text = (n: number | null) => (n === null ? '' : String(n));

export function conditionForm(c: StudyCondition, key: number): ConditionForm {
  return {
    key,
    id: c.id,
    perPuzzleLimitS: text(c.perPuzzleLimitS),
    overallLimitS: text(c.overallLimitS),
    display: c.display,
    scratchpad: c.scratchpad,
  };
}

/** The form showing a (valid) definition. */
export function formFromDefinition(def: StudyDefinition): StudyForm {
  return {
    studyId: def.studyId,
    seed: String(def.seed),
    k: def.k.join(', '),
    tasks: def.tasks.join(', '),
    itemsPerK: String(def.itemsPerK),
    strict: def.strict,
    templateSplit: def.templateSplit,
    practice: String(def.practice),
    attentionChecks: String(def.attentionChecks),
    orderMode: def.order.mode,
    orderLists: def.order.mode === 'counterbalanced' ? String(def.order.lists) : '2',
    conditions: def.conditions.map(conditionForm),
    assignment: def.assignment,
    consentText: def.consentText,
    instructionsText: def.instructionsText,
    completionText: def.completionText,
    breakEvery: String(def.breakEvery),
    completionCode: def.completionCode,
    redirectUrl: def.redirectUrl,
    resumePolicy: def.resumePolicy,
    maxAgeMinutes: String(def.maxAgeMinutes),
    jatos: def.sinks.some((s) => s.kind === 'jatos'),
    server: def.sinks.some((s) => s.kind === 'server'),
    httpSinks: def.sinks.flatMap((s) => (s.kind === 'http' ? [s.url] : [])),
  };
}

export const DEFAULT_FORM: StudyForm = formFromDefinition(DEFAULT_STUDY);

/**
 * A number as typed, or NaN (checkStudyDefinition then names the setting). The CLI reads its
 * flags the same way, so both refuse the same text.
 */
export const readNumber = (value: string): number => (/^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : Number.NaN);
const readList = (value: string): number[] =>
  value.trim() === '' ? [] : value.split(',').map((part) => readNumber(part));
const readLimit = (value: string): number | null => (value.trim() === '' ? null : readNumber(value));

/** The definition the form describes: unchecked (it may hold NaN and bad words). */
export function definitionFromForm(f: StudyForm): StudyDefinition {
  // JATOS first, then the results server, then the HTTP sinks in order: the CLI builds sinks in
  // the same order.
  const sinks: StudySink[] = f.jatos ? [{ kind: 'jatos' }] : [];
  if (f.server) sinks.push({ kind: 'server' });
  for (const url of f.httpSinks) sinks.push({ kind: 'http', url: url.trim() });
  return {
    version: DEFAULT_STUDY.version,
    studyId: f.studyId.trim(),
    seed: readNumber(f.seed),
    k: readList(f.k),
    tasks: readList(f.tasks) as unknown as StudyDefinition['tasks'],
    itemsPerK: readNumber(f.itemsPerK),
    strict: f.strict,
    templateSplit: f.templateSplit as StudyDefinition['templateSplit'],
    practice: readNumber(f.practice),
    attentionChecks: readNumber(f.attentionChecks),
    order:
      f.orderMode === 'counterbalanced'
        ? { mode: 'counterbalanced', lists: readNumber(f.orderLists) }
        : { mode: 'session' },
    conditions: f.conditions.map((c) => ({
      id: c.id.trim(),
      perPuzzleLimitS: readLimit(c.perPuzzleLimitS),
      overallLimitS: readLimit(c.overallLimitS),
      display: c.display,
      scratchpad: c.scratchpad,
    })),
    assignment: f.assignment as StudyDefinition['assignment'],
    consentText: f.consentText,
    instructionsText: f.instructionsText,
    completionText: f.completionText,
    breakEvery: readNumber(f.breakEvery),
    completionCode: f.completionCode.trim(),
    redirectUrl: f.redirectUrl.trim(),
    resumePolicy: f.resumePolicy as StudyDefinition['resumePolicy'],
    maxAgeMinutes: readNumber(f.maxAgeMinutes),
    sinks,
  };
}

/**
 * Where a problem is shown: the input's key in the view. A problem's field is the definition's
 * (dotted) key; sinks are numbered JATOS first, then the results server, and the form lists the
 * HTTP addresses alone.
 */
export function inputForProblem(field: string, f: Pick<StudyForm, 'jatos' | 'server'>): string {
  if (field === 'order.lists') return 'orderLists';
  if (field === 'order') return 'orderMode';
  const sink = /^sinks\.(\d+)(\.url|\.kind)?$/.exec(field);
  if (sink) {
    let i = Number(sink[1]);
    if (f.jatos && i-- === 0) return 'jatos';
    if (f.server && i-- === 0) return 'server';
    return `httpSinks.${i}`;
  }
  return field;
}

/** The problems of the form's study, grouped by the input that shows them (first one first). */
export function problemsByInput(f: StudyForm): { all: StudyProblem[]; byInput: Map<string, string[]> } {
  const all = checkStudyDefinition(definitionFromForm(f));
  const byInput = new Map<string, string[]>();
  for (const p of all) {
    const key = inputForProblem(p.field, f);
    byInput.set(key, [...(byInput.get(key) ?? []), p.message]);
  }
  return { all, byInput };
}

/** The paper's time-limited workers took 1 min 23 s per puzzle on average (Table 3). */
export const MINUTES_PER_PUZZLE = 1.4;

export interface StudySummary {
  /** Main items per (k, task): every pair gets itemsPerK. */
  readonly cells: readonly { readonly k: number; readonly task: number; readonly items: number }[];
  readonly main: number;
  readonly practice: number;
  readonly checks: number;
  readonly trials: number;
  readonly minutes: number;
}

export function studySummary(def: StudyDefinition): StudySummary {
  const cells = def.k.flatMap((k) => def.tasks.map((task) => ({ k, task, items: def.itemsPerK })));
  const main = mainItemCount(def);
  const trials = def.practice + main + def.attentionChecks;
  return {
    cells,
    main,
    practice: def.practice,
    checks: def.attentionChecks,
    trials,
    minutes: Math.round(trials * MINUTES_PER_PUZZLE),
  };
}

/** A word as one POSIX shell argument: bare when safe, else in single quotes. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:,=+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Whether the CLI's single-condition flags (--time-limit …) describe this condition. */
function isSingleFlagCondition(c: StudyCondition): boolean {
  const timed = c.perPuzzleLimitS !== null || c.overallLimitS !== null;
  return c.id === (timed ? 'timed' : DEFAULT_CONDITION.id);
}

/**
 * `npm run cli -- study link …` with a flag for every setting that differs from the defaults
 * (the CLI starts from them), so the command prints this study's link.
 */
export function cliCommand(def: StudyDefinition): string {
  const args: string[] = [];
  const flag = (name: string, value?: string | number) =>
    args.push(value === undefined ? `--${name}` : `--${name} ${shellWord(String(value))}`);
  const changed = <K extends keyof StudyDefinition>(key: K) => !same(def[key], DEFAULT_STUDY[key]);
  if (changed('studyId')) flag('study-id', def.studyId);
  flag('k', def.k.join(','));
  if (changed('tasks')) flag('tasks', def.tasks.join(','));
  flag('per-k', def.itemsPerK);
  flag('seed', def.seed);
  if (!def.strict) flag('no-strict');
  if (changed('templateSplit')) flag('template-split', def.templateSplit);
  if (changed('practice')) flag('practice', def.practice);
  if (changed('attentionChecks')) flag('attention-checks', def.attentionChecks);
  if (def.order.mode === 'counterbalanced') flag('order', `counterbalanced:${def.order.lists}`);
  if (changed('conditions')) {
    const [only] = def.conditions;
    if (def.conditions.length === 1 && only && isSingleFlagCondition(only)) {
      if (only.perPuzzleLimitS !== null) flag('time-limit', only.perPuzzleLimitS);
      if (only.overallLimitS !== null) flag('overall-limit', only.overallLimitS);
      if (only.display !== DEFAULT_CONDITION.display) flag('display', only.display);
      if (only.scratchpad) flag('scratchpad');
    } else {
      for (const c of def.conditions) {
        const parts = [c.id];
        if (c.perPuzzleLimitS !== null) parts.push(`limit=${c.perPuzzleLimitS}`);
        if (c.overallLimitS !== null) parts.push(`overall=${c.overallLimitS}`);
        if (c.display !== DEFAULT_CONDITION.display) parts.push(`display=${c.display}`);
        if (c.scratchpad) parts.push('scratchpad');
        flag('condition', parts.join(','));
      }
    }
  }
  if (changed('assignment')) flag('assignment', def.assignment);
  if (changed('consentText')) flag('consent', def.consentText);
  if (changed('instructionsText')) flag('instructions', def.instructionsText);
  if (changed('completionText')) flag('completion', def.completionText);
  if (changed('breakEvery')) flag('break-every', def.breakEvery);
  if (changed('completionCode')) flag('completion-code', def.completionCode);
  if (changed('redirectUrl')) flag('redirect', def.redirectUrl);
  if (changed('resumePolicy')) flag('resume', def.resumePolicy);
  if (changed('maxAgeMinutes')) flag('max-age', def.maxAgeMinutes);
  for (const s of def.sinks) args.push(sinkCliArgs(s).map(shellWord).join(' '));
  return `npm run cli -- study link ${args.join(' ')}`;
}

/**
 * A definition file loaded back (the designer's JSON download, or one written by hand): the form
 * showing it, or the reason it cannot be used. Settings left out take their defaults.
 */
export function formFromFile(textContent: string): { ok: true; form: StudyForm } | { ok: false; message: string } {
  let value: unknown;
  try {
    value = JSON.parse(textContent);
  } catch {
    return { ok: false, message: 'This file is not JSON; load a study definition saved by the designer.' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, message: 'This file does not hold a study definition (a JSON object).' };
  }
  const def = { ...DEFAULT_STUDY, ...value };
  const problems = checkStudyDefinition(def);
  if (problems.length > 0) {
    const p = problems[0]!;
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
    return { ok: false, message: `This study cannot run: ${p.field ? `${p.field}: ` : ''}${p.message}${more}.` };
  }
  return { ok: true, form: formFromDefinition(def as StudyDefinition) };
}
