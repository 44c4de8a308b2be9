/**
 * The designer's form: what the inputs hold (text, so a half-typed number stays on screen), the
 * study definition they describe, where each of checkStudyDefinition's problems is shown, the
 * summary, and the `study link` command line that makes the same link. The settings, their
 * labels, hints, defaults and readings come from the study options table
 * (src/study/definition/studyOptions.ts), the destinations from the sink table (src/study/definition/sinks.ts): the CLI
 * reads its flags from the same tables. Pure; no React.
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
} from '../../study/definition/definition';
import { sinkCliArgs, type SinkKind, SINKS } from '../../study/definition/sinks';
import { kindSpec } from '../../study/kinds';
import { conditionArgs, optionArgs } from '../../study/definition/commandLine';
import type { EmbeddedStory } from '../../study/definition/types';
import { KIND_NAMES, KIND_WORDS, kindOf, type StudyKind } from '../../study/definition/vocabulary';
import {
  optionDefault,
  optionFits,
  readNumber,
  STUDY_OPTION_FIELDS,
  STUDY_OPTIONS,
  type StudyOptionField,
} from '../../study/definition/studyOptions';

export { readNumber };

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

/** The settings shown as a checkbox. */
export type SwitchField = 'strict' | 'favourUncovered' | 'showEstimate';

/**
 * The settings with one text input each (the order has two inputs, the switches a checkbox, the
 * embedded stories a file).
 */
export type TextOptionField = Exclude<StudyOptionField, 'order' | SwitchField | 'reviewStories'>;

/** Where results go: one box per sink kind (none ticked until the researcher chooses), and their settings. */
export type DestinationInputs = { readonly [K in SinkKind]: boolean } & {
  /** The HTTP addresses, used while `http` is ticked. */
  readonly httpSinks: readonly string[];
  /** How participants send their file, used while `download` is ticked. */
  readonly sendInstructions: string;
};

export type StudyForm = { readonly [F in TextOptionField]: string } & DestinationInputs & {
    readonly [F in SwitchField]: boolean;
  } & {
    /** A review study's embedded stories, as loaded from a file. */
    readonly reviewStories: readonly EmbeddedStory[];
    readonly orderMode: 'session' | 'counterbalanced';
    readonly orderLists: string;
    readonly conditions: readonly ConditionForm[];
  };

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

export const TEXT_OPTION_FIELDS = STUDY_OPTION_FIELDS.filter(
  (f): f is TextOptionField =>
    f !== 'order' && f !== 'strict' && f !== 'favourUncovered' && f !== 'showEstimate' && f !== 'reviewStories',
);

const write = <F extends StudyOptionField>(field: F, def: StudyDefinition): string =>
  STUDY_OPTIONS[field].write(def[field]);

/** The form showing a (valid) definition. */
export function formFromDefinition(def: StudyDefinition): StudyForm {
  return {
    ...(Object.fromEntries(TEXT_OPTION_FIELDS.map((f) => [f, write(f, def)])) as {
      [F in TextOptionField]: string;
    }),
    strict: def.strict,
    favourUncovered: def.favourUncovered,
    showEstimate: def.showEstimate,
    reviewStories: def.reviewStories,
    orderMode: def.order.mode,
    orderLists: def.order.mode === 'counterbalanced' ? String(def.order.lists) : '2',
    conditions: def.conditions.map(conditionForm),
    ...destinationsOf(def.sinks),
  };
}

const readLimit = (value: string): number | null => (value.trim() === '' ? null : readNumber(value));

/** What the form knows of one sink kind. */
interface Destination<K extends SinkKind> {
  /** The sinks of this kind the inputs describe. */
  sinks(f: DestinationInputs): Extract<StudySink, { kind: K }>[];
  /** The inputs that show a definition's sinks of this kind. */
  inputs(sinks: Extract<StudySink, { kind: K }>[]): Partial<DestinationInputs>;
  /** The input of the n-th sink of this kind; `sub` follows `sinks.N` in a problem's field. */
  input(n: number, sub: string): string;
}

/**
 * Each destination box: the sinks it adds, and the input that shows the problems of its N-th
 * sink (`sub` is what follows `sinks.N`, e.g. `.url`). One entry per sink kind, so a new kind
 * cannot be left out of the form.
 */
const DESTINATIONS = {
  jatos: {
    sinks: (f) => (f.jatos ? [{ kind: 'jatos' }] : []),
    inputs: (sinks) => ({ jatos: sinks.length > 0 }),
    input: () => 'jatos',
  },
  server: {
    sinks: (f) => (f.server ? [{ kind: 'server' }] : []),
    inputs: (sinks) => ({ server: sinks.length > 0 }),
    input: () => 'server',
  },
  http: {
    sinks: (f) => (f.http ? f.httpSinks.map((url) => ({ kind: 'http', url: url.trim() })) : []),
    inputs: (sinks) => ({ http: sinks.length > 0, httpSinks: sinks.map((s) => s.url) }),
    input: (n) => `httpSinks.${n}`,
  },
  download: {
    sinks: (f) => (f.download ? [{ kind: 'download', instructions: f.sendInstructions.trim() }] : []),
    inputs: (sinks) => ({ download: sinks.length > 0, sendInstructions: sinks[0]?.instructions ?? '' }),
    input: (_n, sub) => (sub === '.instructions' ? 'sendInstructions' : 'download'),
  },
} satisfies { readonly [K in SinkKind]: Destination<K> };

const DESTINATION_TABLE: { readonly [K in SinkKind]: Destination<K> } = DESTINATIONS;

const DESTINATION_KINDS = Object.keys(DESTINATIONS) as SinkKind[];

/** The destination inputs showing a definition's sinks. */
function destinationsOf(sinks: readonly StudySink[]): DestinationInputs {
  const inputs = <K extends SinkKind>(kind: K): Partial<DestinationInputs> => {
    return DESTINATION_TABLE[kind].inputs(sinks.filter((s): s is Extract<StudySink, { kind: K }> => s.kind === kind));
  };
  return Object.assign({}, ...DESTINATION_KINDS.map(inputs)) as DestinationInputs;
}

/** The defaults; where results go is not chosen. */
export const DEFAULT_FORM: StudyForm = formFromDefinition(DEFAULT_STUDY);

/** The sinks the destination boxes describe, in the sink table's order (the CLI's too). */
const sinksFromForm = (f: DestinationInputs): StudySink[] =>
  DESTINATION_KINDS.flatMap((k): StudySink[] => DESTINATION_TABLE[k].sinks(f));

/**
 * The definition the form describes: unchecked (it may hold NaN and bad words). The inputs of
 * other kinds of study keep what was typed in them (they show again when the kind is switched
 * back) but the definition takes the kind's defaults for them, as `study link` does; a collection
 * study's conditions show text only, without a scratchpad.
 */
export function definitionFromForm(f: StudyForm): StudyDefinition {
  const values: Record<string, unknown> = {};
  const kind = kindOf({ kind: f.kind.trim() });
  for (const field of Object.keys(DEFAULT_STUDY) as (keyof StudyDefinition)[]) {
    if (field !== 'version' && field !== 'conditions' && field !== 'sinks' && !optionFits(field, kind)) {
      values[field] = optionDefault(field, kind);
    } else if (field === 'version') values.version = DEFAULT_STUDY.version;
    else if (
      field === 'strict' ||
      field === 'favourUncovered' ||
      field === 'showEstimate' ||
      field === 'reviewStories'
    ) {
      values[field] = f[field];
    } else if (field === 'order') {
      values.order = STUDY_OPTIONS.order.read(
        f.orderMode === 'counterbalanced' ? `counterbalanced:${f.orderLists}` : 'session',
      );
    } else if (field === 'conditions') {
      values.conditions = f.conditions.map((c) => ({
        id: c.id.trim(),
        perPuzzleLimitS: readLimit(c.perPuzzleLimitS),
        overallLimitS: readLimit(c.overallLimitS),
        display: kindSpec(kind).designer.displays ? c.display : 'text',
        scratchpad: kindSpec(kind).designer.displays && c.scratchpad,
      }));
    } else if (field === 'sinks') values.sinks = sinksFromForm(f);
    else values[field] = STUDY_OPTIONS[field].read(f[field]);
  }
  return values as unknown as StudyDefinition;
}

/**
 * Where a problem is shown: the input's key in the view. A problem's field is the definition's
 * (dotted) key; `sinks.N…` goes to the box (or address, or instructions) of the N-th sink.
 */
export function inputForProblem(field: string, f: DestinationInputs): string {
  if (field === 'order.lists') return 'orderLists';
  if (field === 'order') return 'orderMode';
  if (field.startsWith('reviewStories')) return 'reviewStories';
  const sink = /^sinks\.(\d+)(\..*)?$/.exec(field);
  if (sink) {
    const sinks = sinksFromForm(f);
    const at = Number(sink[1]);
    const kind = sinks[at]?.kind;
    if (kind === undefined) return 'sinks';
    const n = sinks.slice(0, at).filter((s) => s.kind === kind).length;
    return DESTINATION_TABLE[kind].input(n, sink[2] ?? '');
  }
  return field;
}

/** A label inside a sentence: "The results server" → "the results server", "JATOS" stays. */
const inSentence = (label: string) => (/^[A-Z][a-z]/.test(label) ? label[0]!.toLowerCase() + label.slice(1) : label);
const destinationNames = DESTINATION_KINDS.map((k) => inSentence(SINKS[k].label));

/** Said where the link would be, and beside the destinations, until one is chosen. */
export const NO_DESTINATION = `choose where results go: ${destinationNames.slice(0, -1).join(', ')} or ${destinationNames.at(-1)}`;

/**
 * The problems of the form's study, grouped by the input that shows them (first one first). The
 * designer asks for a destination, which the definition itself does not (`study link` warns
 * instead): a study made here never sends its rows nowhere by accident.
 */
export function problemsByInput(f: StudyForm): { all: StudyProblem[]; byInput: Map<string, string[]> } {
  const def = definitionFromForm(f);
  const all = checkStudyDefinition(def);
  if (def.sinks.length === 0) all.push({ field: 'sinks', message: NO_DESTINATION });
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

/** What a collection study asks of each participant, in one sentence for the summary (its kind's). */
export function whatParticipantsDo(def: StudyDefinition): string {
  return kindSpec(def.kind).designer.participantTask?.(def) ?? '';
}

/** Names the kind in the designer's words ("puzzle-solving"). */
export const kindName = (kind: StudyKind) => KIND_NAMES[kind];

/** The settings whose default differs by kind (the texts that say what the kind asks, an adaptive study's k). */
const KIND_TEXTS = TEXT_OPTION_FIELDS.filter((f) =>
  KIND_WORDS.some((k) => optionDefault(f, k) !== STUDY_OPTIONS[f].default),
);

/**
 * The form with another kind of study chosen: a text still at the old kind's default takes the
 * new kind's (a text the researcher wrote stays as written).
 */
export function withKind(f: StudyForm, kind: string): StudyForm {
  const from = kindOf({ kind: f.kind.trim() });
  const to = kindOf({ kind });
  const texts: Partial<Record<TextOptionField, string>> = {};
  for (const field of KIND_TEXTS) {
    const [was, will] = [from, to].map((k) => STUDY_OPTIONS[field].write(optionDefault(field, k) as never));
    if (f[field] === was) texts[field] = will;
  }
  return { ...f, ...texts, kind };
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

/**
 * `npm run cli -- study link …` with a flag for every setting that differs from the defaults
 * (the CLI starts from them), so the command prints this study's link. The words come from the
 * study options table and the sink table, as the CLI's flags do.
 */
export function cliCommand(def: StudyDefinition): string {
  const args = [
    ...optionArgs(def),
    ...conditionArgs(def.conditions, DEFAULT_CONDITION),
    ...def.sinks.flatMap(sinkCliArgs),
  ];
  return `npm run cli -- study link ${args.map(shellWord).join(' ')}`;
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
