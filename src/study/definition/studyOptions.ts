/**
 * The study's options, declared once (as datasetOptions.ts does for datasets): for every setting
 * of a StudyDefinition but its conditions and sinks, the field, the `study link` flag, the
 * designer's label, the help both show, the default (DEFAULT_STUDY is built from these), how a
 * typed value is read and written back, and the check. `checkStudyDefinition` runs the checks;
 * the CLI's flags, the designer's inputs and its generated command line are made from this table.
 * Conditions have their own flags (`CONDITION_FLAGS`, below) and sinks their own table (sinks.ts).
 *
 * Imports only types from definition.ts, which builds its defaults and checks from this table.
 */
import { TASK_IDS, type TaskId } from '../../core/puzzle/tasks';
import type { StudyDefinition, StudyCondition, StudyOrder } from './definition';
import { isHttpUrl } from './sinks';

/** Which paraphrases stories are told with: all of them, or only the held-in / held-out 80/20 halves. */
export const TEMPLATE_SPLITS = ['all', 'train', 'test'] as const;
export type TemplateSplit = (typeof TEMPLATE_SPLITS)[number];

/** What the participant sees beside the question. */
export const DISPLAYS = ['text', 'text+drawing'] as const;
export type Display = (typeof DISPLAYS)[number];

/** How a participant gets a condition: a seeded balanced counter, or `condition=<id>` in the URL. */
export const ASSIGNMENTS = ['balanced', 'url'] as const;
export type Assignment = (typeof ASSIGNMENTS)[number];

/**
 * What a study asks of its participants: solve puzzles (the original study), write paraphrases of
 * clauses (the paper's crowdsourcing task), or review others' paraphrases. Old links carry no kind
 * and are `solve` studies.
 */
export const STUDY_KINDS = ['solve', 'paraphrase', 'review'] as const;
export type StudyKind = (typeof STUDY_KINDS)[number];

/** How each kind is named in sentences (problems, the designer, the CLI's summary). */
export const KIND_NAMES: { readonly [K in StudyKind]: string } = {
  solve: 'puzzle-solving',
  paraphrase: 'paraphrase',
  review: 'review',
};

/**
 * Which people a paraphrase study's clauses have: `any` gender combination the bank has, or only
 * `mixed` ones (at least one woman and one man among the clause's people).
 */
export const CLAUSE_GENDERS = ['any', 'mixed'] as const;
export type ClauseGenders = (typeof CLAUSE_GENDERS)[number];

/** The clause lengths (facts per clause) a paraphrase study may ask for: the paper's 1 to 3. */
export const CLAUSE_KS = [1, 2, 3] as const;

/** A review's reasons for "bad", in the order a review row lists them (the paper's three, and other). */
export const REVIEW_REASONS = ['ungrammatical', 'missing-fact', 'reveals-implied', 'other'] as const;
export type ReviewReason = (typeof REVIEW_REASONS)[number];

/**
 * One story a review study carries in its link (file mode, without the results server): the story's
 * id (`<session_id>/<trial_index>` of its paraphrase row), its clause (`puzzle_id`) and clause seed,
 * which regenerate the facts (`clauseFromId`), the text as written, and, when its writer had an id,
 * a short hash of it (`authorTag`), so that nobody is given their own story.
 */
export interface EmbeddedStory {
  readonly id: string;
  readonly clause: string;
  readonly seed: number;
  readonly story: string;
  readonly author?: string;
}

/**
 * Where participants take part, for the results server's limit on new sessions per network
 * address: `online` (one device each, at most ONLINE_SESSIONS_PER_ADDRESS an hour from one
 * address) or `room` (a class or lab sharing one address; the researcher sets how many).
 */
export const PARTICIPATION = ['online', 'room'] as const;
export type Participation = (typeof PARTICIPATION)[number];
/** New sessions an hour one network address may start in an `online` study. */
export const ONLINE_SESSIONS_PER_ADDRESS = 5;

/** What a reopened session does: carry on at the first unanswered item, start over, or refuse. */
export const RESUME_POLICIES = ['resume', 'restart', 'refuse'] as const;
export type ResumePolicy = (typeof RESUME_POLICIES)[number];

/** Limits a definition must stay within (also what keeps links short). */
export const STUDY_LIMITS = {
  maxK: 10,
  maxItemsPerK: 100,
  maxMainItems: 500,
  maxPractice: 20,
  maxAttentionChecks: 20,
  maxConditions: 12,
  maxLimitS: 24 * 60 * 60,
  maxTextLength: 20_000,
  maxMaxAgeMinutes: 60 * 24 * 90,
  maxRoomSessions: 10_000,
  maxSinks: 8,
  maxClausesPerParticipant: 50,
  maxWords: 1000,
  maxReviewsPerStory: 20,
  maxReviewsPerParticipant: 50,
  maxEmbeddedStories: 500,
  maxStoryLength: 2000,
} as const;

/** A problem's reporter: `field` is the definition's (dotted) key. */
export type Fail = (field: string, message: string) => void;

/** The settings this table declares: all but the format version, the conditions and the sinks. */
export type StudyOptionField = Exclude<keyof StudyDefinition, 'version' | 'conditions' | 'sinks'>;

/**
 * How an input shows a setting; `switch` is a checkbox and a `--flag` / `--no-flag` pair; `stories`
 * is a file (the CLI's flag names a file, the designer loads one).
 */
export type StudyInput = 'text' | 'number' | 'list' | 'choice' | 'markdown' | 'order' | 'switch' | 'stories';

export interface StudyOption<F extends StudyOptionField> {
  /** The `study link` flag, without `--`. */
  readonly flag: string;
  readonly input: StudyInput;
  /** The designer's label. */
  readonly label: string;
  /** What the setting means: the CLI's `--help` line and the designer's hint. */
  readonly help: string;
  /** The default of format version 1 (links leave out values equal to it: frozen with the version). */
  readonly default: StudyDefinition[F];
  /**
   * The kinds of study the setting belongs to; absent: every kind. A study of another kind must
   * leave it at its default (checkOption says so).
   */
  readonly kinds?: readonly StudyKind[];
  /** The default for a kind other than `solve`, where it differs (the texts say what each kind asks). */
  readonly kindDefaults?: { readonly [K in StudyKind]?: StudyDefinition[F] };
  /** The values a `choice` takes. */
  readonly choices?: readonly string[];
  /** A value as typed (a flag's value, an input's text) → the setting, unchecked (a bad number is NaN). */
  read(text: string): unknown;
  /** The setting as typed (the designer's input, the generated command line). */
  write(value: StudyDefinition[F]): string;
  /** Reports every problem of the value; `def` holds the other (unchecked) settings. */
  check(value: unknown, def: Readonly<Record<string, unknown>>, fail: Fail): void;
}

/** Study and condition ids: what the study_id and condition columns and URLs take. */
export const STUDY_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const CODE = /^[A-Za-z0-9_-]{0,64}$/;

export const isWhole = (v: unknown, lo: number, hi: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= lo && v <= hi;

/**
 * A number as typed, or NaN: checks then name the setting. `Number()` alone would read "" as 0
 * and "0x10" as 16.
 */
export const readNumber = (text: string): number => (/^\s*-?\d+(\.\d+)?\s*$/.test(text) ? Number(text) : Number.NaN);
/** Comma-separated numbers; an empty text is an empty list. */
const readList = (text: string): number[] => (text.trim() === '' ? [] : text.split(',').map(readNumber));

const mainItems = (def: Readonly<Record<string, unknown>>): number =>
  Array.isArray(def.k) && Array.isArray(def.tasks) && typeof def.itemsPerK === 'number'
    ? def.k.length * def.tasks.length * def.itemsPerK
    : 0;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const text = (flag: string, label: string, help: string, def: string, check: StudyOption<never>['check']) => ({
  flag,
  input: 'text' as const,
  label,
  help,
  default: def,
  read: (t: string) => t.trim(),
  write: (v: string) => v,
  check,
});

const whole = (
  flag: string,
  label: string,
  help: string,
  def: number,
  range: readonly [number, number],
  message: string,
) => ({
  flag,
  input: 'number' as const,
  label,
  help,
  default: def,
  read: readNumber,
  write: (v: number) => String(v),
  check: (v: unknown, _def: unknown, fail: Fail) => {
    if (!isWhole(v, range[0], range[1])) fail('', message);
  },
});

const choice = <C extends string>(
  flag: string,
  label: string,
  help: string,
  def: C,
  choices: readonly C[],
  message: string,
) => ({
  flag,
  input: 'choice' as const,
  label,
  help,
  default: def,
  choices,
  read: (t: string) => t.trim(),
  write: (v: C) => v,
  check: (v: unknown, _def: unknown, fail: Fail) => {
    if (!choices.includes(v as C)) fail('', message);
  },
});

const markdown = (flag: string, label: string, help: string, def: string) => ({
  flag,
  input: 'markdown' as const,
  label,
  help,
  default: def,
  read: (t: string) => t,
  write: (v: string) => v,
  check: (v: unknown, _def: unknown, fail: Fail) => {
    if (typeof v !== 'string' || v.length > STUDY_LIMITS.maxTextLength) {
      fail('', `the text must be at most ${STUDY_LIMITS.maxTextLength} characters`);
    }
  },
});

const SOLVE: readonly StudyKind[] = ['solve'];
const PARAPHRASE: readonly StudyKind[] = ['paraphrase'];
const REVIEW: readonly StudyKind[] = ['review'];

/** What every kind's default consent says is recorded besides the answers themselves. */
const RECORDED_TOO =
  'your browser (its user-agent text) and screen size; and, if you take part through Prolific, your Prolific participant, study and session ids. ' +
  'Your name and contact details are not asked for.';

/** The default texts of the collection kinds (a solve study's are the table's `default`). */
const KIND_TEXTS = {
  consentText: {
    paraphrase:
      'This study asks you to write a few very short stories about a family, each telling some facts you are given. Taking part is voluntary; you may stop at any time.\n\n' +
      'What is recorded: the stories you write, how long each took, how long the page was hidden and when each story was sent; ' +
      RECORDED_TOO +
      '\n\nYour stories may be shown to other participants, who judge whether they tell their facts well; accepted stories, with the names replaced, may become sentence patterns of a published research dataset.',
    review:
      'This study asks you to read short stories about a family, written by other participants, and say whether each one tells its facts well. Taking part is voluntary; you may stop at any time.\n\n' +
      'What is recorded: your verdict on each story and your reasons, how long each took, how long the page was hidden and when each verdict was sent; ' +
      RECORDED_TOO,
  },
  instructionsText: {
    paraphrase:
      'You will see a few facts about the people of a family, such as “Ana is the mother of Ben.” Write a short story in plain English that tells **every** fact. Mention every person by the name given.\n\n' +
      'You will also see a fact that follows from the others (the *implied fact*). Do **not** state it: a reader should have to work it out.\n\n' +
      'The story does not need to be long or clever, only grammatical and true to the facts. Checks under the text box say what is still missing; Submit works once they pass. If the page reloads, your text is kept.',
    review:
      'Each story was written by another participant from a few facts about a family. You will see the story, its facts, and a fact that follows from them which the story should **not** state (the *implied fact*).\n\n' +
      'Mark a story **good** when it is grammatical, tells every fact and does not give away the implied fact. Otherwise mark it **bad** and tick every reason that applies: nonsense or ungrammatical; a fact left out or told wrongly; the implied fact stated; or another reason.',
  },
} as const;

/** A whole number setting of the collection kinds, between its limits. */
const count = (
  flag: string,
  label: string,
  help: string,
  def: number,
  kinds: readonly StudyKind[],
  max: number,
  what: string,
) => ({ kinds, ...whole(flag, label, help, def, [1, max], `${what} must be a whole number from 1 to ${max}`) });

const sinksOf = (def: Readonly<Record<string, unknown>>): unknown[] => (Array.isArray(def.sinks) ? def.sinks : []);
/** The (unchecked) study sends to the results server. */
const sendsToServer = (def: Readonly<Record<string, unknown>>) =>
  sinksOf(def).some((s) => isRecord(s) && s.kind === 'server');
const storiesOf = (def: Readonly<Record<string, unknown>>): unknown[] =>
  Array.isArray(def.reviewStories) ? def.reviewStories : [];

/** A clause id as `study link` and the rows write it: `c1.<relation words>.<genders>`. */
export const CLAUSE_ID_PATTERN = /^c1\.[a-z]+(-[a-z]+)*\.(male|female)(-(male|female))*$/;
/** A story's id: the `<session_id>/<trial_index>` of its paraphrase row. */
export const STORY_ID_PATTERN = /^[^/\s]{1,200}\/\d{1,6}$/;
const AUTHOR_TAG = /^[0-9a-f]{8}$/;
const STORY_KEYS = ['id', 'clause', 'seed', 'story', 'author'];

/** Every problem of an embedded story list, reported under `reviewStories.<i>`. */
function checkStories(v: unknown, fail: Fail): void {
  if (!Array.isArray(v) || v.length > STUDY_LIMITS.maxEmbeddedStories) {
    return fail('', `the embedded stories must be a list of at most ${STUDY_LIMITS.maxEmbeddedStories}`);
  }
  const ids = new Set<string>();
  v.forEach((value: unknown, i) => {
    const at = `reviewStories.${i}`;
    if (!isRecord(value)) return fail(at, 'an embedded story must be an object');
    const story = Object.fromEntries(Object.entries(value)) as Record<string, unknown>;
    const extra = Object.keys(story).find((k) => !STORY_KEYS.includes(k));
    if (extra !== undefined) return fail(at, `"${extra}" is not a field of an embedded story`);
    if (typeof story.id !== 'string' || !STORY_ID_PATTERN.test(story.id)) {
      return fail(`${at}.id`, 'a story id must be <session_id>/<trial_index> of its paraphrase row');
    }
    if (ids.has(story.id)) return fail(`${at}.id`, `the story "${story.id}" is embedded twice`);
    ids.add(story.id);
    if (typeof story.clause !== 'string' || !CLAUSE_ID_PATTERN.test(story.clause)) {
      fail(
        `${at}.clause`,
        `story "${story.id}": the clause must be a clause id such as c1.mother-brother.female-female-male`,
      );
    }
    if (!isWhole(story.seed, 0, 0xffffffff))
      fail(`${at}.seed`, `story "${story.id}": the seed must be a whole number from 0 to 4294967295`);
    if (
      typeof story.story !== 'string' ||
      story.story.trim() === '' ||
      story.story.length > STUDY_LIMITS.maxStoryLength
    ) {
      fail(`${at}.story`, `story "${story.id}": the text must be 1 to ${STUDY_LIMITS.maxStoryLength} characters`);
    }
    if (story.author !== undefined && (typeof story.author !== 'string' || !AUTHOR_TAG.test(story.author))) {
      fail(`${at}.author`, `story "${story.id}": the author tag must be 8 hexadecimal digits`);
    }
  });
}

/**
 * The table, in the definition's field order (problems are listed in this order). `fail('', …)`
 * in a check means the option's own field.
 */
const OPTION_TABLE = {
  kind: {
    ...choice(
      'kind',
      'Kind of study',
      'what participants do: solve (puzzles), paraphrase (write stories from facts) or review (rate others’ stories)',
      'solve',
      STUDY_KINDS,
      `the kind of study must be one of ${STUDY_KINDS.join(', ')}`,
    ),
  },
  studyId: text(
    'study-id',
    'Study id',
    'the study id: letters, digits, - and _ (the study_id column)',
    'study',
    (v, _def, fail) => {
      if (typeof v !== 'string' || !STUDY_ID_PATTERN.test(v))
        fail('', 'the study id must be 1–64 letters, digits, "-" or "_"');
    },
  ),
  seed: whole(
    'seed',
    'Seed',
    'the study seed: fixes the puzzles every participant gets (0..4294967295)',
    1,
    [0, 0xffffffff],
    'the seed must be a whole number from 0 to 4294967295',
  ),
  k: {
    flag: 'k',
    kinds: SOLVE,
    input: 'list',
    label: 'Story lengths k',
    help: `story lengths, comma-separated (each 1..${STUDY_LIMITS.maxK})`,
    default: [2, 3, 4],
    read: readList,
    write: (v) => v.join(','),
    check: (k, _def, fail) => {
      if (!Array.isArray(k) || k.length === 0 || !k.every((x) => isWhole(x, 1, STUDY_LIMITS.maxK))) {
        fail('', `k must be whole numbers from 1 to ${STUDY_LIMITS.maxK} (at least one)`);
      } else if (new Set(k).size !== k.length) fail('', 'each k value may be listed only once');
    },
  },
  tasks: {
    flag: 'tasks',
    kinds: SOLVE,
    input: 'list',
    label: 'Tasks',
    help: 'task numbers, comma-separated (1..7; 1 is the clean task)',
    default: [1],
    read: readList,
    write: (v) => v.join(','),
    check: (tasks, _def, fail) => {
      if (!Array.isArray(tasks) || tasks.length === 0 || !tasks.every((t) => TASK_IDS.includes(t as TaskId))) {
        fail('', 'tasks must be task numbers from 1 to 7 (at least one)');
      } else if (new Set(tasks).size !== tasks.length) fail('', 'each task may be listed only once');
    },
  },
  itemsPerK: {
    kinds: SOLVE,
    ...whole(
      'per-k',
      'Items per k and task',
      'main items for every (k, task) pair',
      5,
      [1, STUDY_LIMITS.maxItemsPerK],
      `items per k must be a whole number from 1 to ${STUDY_LIMITS.maxItemsPerK}`,
    ),
    check: (v, def, fail) => {
      if (!isWhole(v, 1, STUDY_LIMITS.maxItemsPerK)) {
        fail('', `items per k must be a whole number from 1 to ${STUDY_LIMITS.maxItemsPerK}`);
      }
      const total = mainItems(def);
      if (total > STUDY_LIMITS.maxMainItems) {
        fail(
          '',
          `the study has ${total} main items (k values × tasks × items per k); at most ${STUDY_LIMITS.maxMainItems}`,
        );
      }
    },
  },
  strict: {
    flag: 'strict',
    kinds: SOLVE,
    input: 'switch',
    label: 'Strict puzzles',
    help: 'strictly solvable puzzles only (sound rules); on by default for studies, --no-strict turns it off',
    default: true,
    read: (t) => t === 'true',
    write: (v) => String(v),
    check: (v, _def, fail) => {
      if (typeof v !== 'boolean') fail('', 'strict must be true or false');
    },
  },
  templateSplit: {
    kinds: SOLVE,
    ...choice(
      'template-split',
      'Paraphrases',
      'paraphrases: all, train or test',
      'all',
      TEMPLATE_SPLITS,
      `the template split must be one of ${TEMPLATE_SPLITS.join(', ')}`,
    ),
  },
  practice: {
    kinds: SOLVE,
    ...whole(
      'practice',
      'Practice items',
      'practice items with feedback, before the main items',
      2,
      [0, STUDY_LIMITS.maxPractice],
      `practice items must be a whole number from 0 to ${STUDY_LIMITS.maxPractice}`,
    ),
  },
  attentionChecks: {
    kinds: SOLVE,
    ...whole(
      'attention-checks',
      'Attention checks',
      'attention checks spread among the main items',
      1,
      [0, STUDY_LIMITS.maxAttentionChecks],
      `attention checks must be a whole number from 0 to ${STUDY_LIMITS.maxAttentionChecks}`,
    ),
  },
  order: {
    flag: 'order',
    kinds: SOLVE,
    input: 'order',
    label: 'Order of the main items',
    help: 'main item order: session (each participant their own) or counterbalanced:N (N rotations of one fixed order)',
    default: { mode: 'session' },
    read: (t): unknown => {
      if (t.trim() === 'session') return { mode: 'session' };
      const m = /^\s*counterbalanced:(.*)$/.exec(t);
      return m ? { mode: 'counterbalanced', lists: readNumber(m[1]!) } : { mode: t };
    },
    write: (v: StudyOrder) => (v.mode === 'session' ? 'session' : `counterbalanced:${v.lists}`),
    check: (value, def, fail) => {
      if (!isRecord(value)) return fail('', 'the order must be "session" or "counterbalanced:N"');
      const order = Object.fromEntries(Object.entries(value)) as Record<string, unknown>;
      if (order.mode === 'session') {
        if (Object.keys(order).length !== 1) fail('', 'a per-session order takes no other setting');
      } else if (order.mode === 'counterbalanced') {
        if (Object.keys(order).length !== 2) fail('', 'a counterbalanced order takes only the number of lists');
        if (!isWhole(order.lists, 2, Math.max(2, mainItems(def)))) {
          fail('order.lists', 'counterbalanced lists must be a whole number from 2 to the number of main items');
        }
      } else fail('', 'the order must be "session" or "counterbalanced:N"');
    },
  },
  assignment: choice(
    'assignment',
    'Condition assignment',
    'how participants get a condition: balanced (a seeded counter) or url (condition=<id> in the link)',
    'balanced',
    ASSIGNMENTS,
    'condition assignment must be "balanced" (a counter) or "url"',
  ),
  consentText: {
    ...markdown(
      'consent',
      'Consent',
      'the consent text (markdown), shown first; the participant accepts it to begin. The default says what is recorded',
      'This study asks you to solve short puzzles about family relations. Taking part is voluntary; you may stop at any time.\n\n' +
        'What is recorded: your answers, how long each answer took, how often you changed an answer, how long the page was hidden, your difficulty ratings and the time of each answer; ' +
        'your browser (its user-agent text) and screen size; and, if you take part through Prolific, your Prolific participant, study and session ids. ' +
        'Your name and contact details are not asked for.',
    ),
    kindDefaults: KIND_TEXTS.consentText,
    check: (v, def, fail) => {
      markdown('', '', '', '').check(v, def, fail);
      if (typeof v === 'string' && v.trim() === '') fail('', 'the consent text must not be empty');
    },
  },
  instructionsText: {
    ...markdown(
      'instructions',
      'Instructions',
      'the instructions (markdown), shown after consent',
      'Each puzzle is a short story about a family, followed by a question about how two people are related. Choose the answer from the list, then rate how difficult the puzzle was.',
    ),
    kindDefaults: KIND_TEXTS.instructionsText,
  },
  completionText: markdown(
    'completion',
    'Completion',
    'the completion text (markdown), shown at the end with the completion code',
    'Thank you for taking part.',
  ),
  breakEvery: whole(
    'break-every',
    'Break every N main trials',
    'a break after every N main trials (0: none)',
    0,
    [0, STUDY_LIMITS.maxMainItems],
    'breaks every N items must be a whole number (0 for no breaks)',
  ),
  completionCode: text(
    'completion-code',
    'Completion code',
    "the code shown at the end (e.g. Prolific's); may be empty",
    '',
    (v, _def, fail) => {
      if (typeof v !== 'string' || !CODE.test(v)) {
        fail('', 'the completion code must be at most 64 letters, digits, "-" or "_"');
      }
    },
  ),
  redirectUrl: text(
    'redirect',
    'Redirect address',
    'where participants go once every row is acknowledged (an http(s) address); may be empty',
    '',
    (v, _def, fail) => {
      if (typeof v !== 'string' || (v !== '' && !isHttpUrl(v)))
        fail('', 'the redirect must be empty or an http(s) address');
    },
  ),
  resumePolicy: choice(
    'resume',
    'Resume policy',
    'a reopened session: resume (at the first unanswered trial), restart or refuse',
    'resume',
    RESUME_POLICIES,
    `the resume policy must be one of ${RESUME_POLICIES.join(', ')}`,
  ),
  maxAgeMinutes: whole(
    'max-age',
    'Maximum age (minutes)',
    'minutes after its start that a session may still be resumed',
    24 * 60,
    [1, STUDY_LIMITS.maxMaxAgeMinutes],
    `the maximum age must be a whole number of minutes from 1 to ${STUDY_LIMITS.maxMaxAgeMinutes}`,
  ),
  participation: choice(
    'participation',
    'Where participants take part',
    `online (each on their own device: at most ${ONLINE_SESSIONS_PER_ADDRESS} new sessions an hour from one network address) or room (a class or lab behind one address)`,
    'online',
    PARTICIPATION,
    'participation must be "online" or "room"',
  ),
  roomSessions: whole(
    'room-sessions',
    'Sessions per address an hour (room)',
    'with participation "room": new sessions one network address may start in an hour (the size of the class)',
    40,
    [1, STUDY_LIMITS.maxRoomSessions],
    `sessions per address must be a whole number from 1 to ${STUDY_LIMITS.maxRoomSessions}`,
  ),
  claimMinutes: whole(
    'claim-minutes',
    'Minutes to the first answer',
    'minutes a new session may go without storing an answer before the results server gives its place (quota, counterbalancing cell, review items) to the next participant',
    15,
    [1, STUDY_LIMITS.maxMaxAgeMinutes],
    `the minutes to the first answer must be a whole number from 1 to ${STUDY_LIMITS.maxMaxAgeMinutes}`,
  ),

  // ---- paraphrase studies ----
  clauseKs: {
    flag: 'clause-k',
    input: 'list',
    kinds: PARAPHRASE,
    label: 'Facts per clause',
    help: 'how many facts a clause to paraphrase has, comma-separated (each 1..3)',
    default: [1, 2, 3],
    read: readList,
    write: (v) => v.join(','),
    check: (ks, _def, fail) => {
      if (!Array.isArray(ks) || ks.length === 0 || !ks.every((x) => (CLAUSE_KS as readonly unknown[]).includes(x))) {
        fail('', 'facts per clause must be whole numbers from 1 to 3 (at least one)');
      } else if (new Set(ks).size !== ks.length) fail('', 'each number of facts per clause may be listed only once');
    },
  },
  clauseGenders: {
    kinds: PARAPHRASE,
    ...choice(
      'clause-genders',
      'Genders in a clause',
      'the people of a clause: any gender combination, or mixed (at least one woman and one man)',
      'any',
      CLAUSE_GENDERS,
      `the clause genders must be one of ${CLAUSE_GENDERS.join(', ')}`,
    ),
  },
  clausesPerParticipant: count(
    'clauses-per-participant',
    'Clauses per participant',
    'how many clauses each participant writes a story for',
    3,
    PARAPHRASE,
    STUDY_LIMITS.maxClausesPerParticipant,
    'clauses per participant',
  ),
  favourUncovered: {
    flag: 'favour-uncovered',
    input: 'switch',
    kinds: PARAPHRASE,
    label: 'Favour clauses with fewest stories',
    help: 'give participants the clauses (relations and genders) with the fewest stories so far; needs --sink server, which counts them',
    default: false,
    read: (t) => t === 'true',
    write: (v) => String(v),
    check: (v, def, fail) => {
      if (typeof v !== 'boolean') fail('', 'favour uncovered must be true or false');
      else if (v && !sendsToServer(def)) {
        fail(
          '',
          'favouring the clauses with fewest stories needs the results server, which counts them (--sink server)',
        );
      }
    },
  },
  minWords: {
    ...count(
      'min-words',
      'Fewest words',
      'the shortest story accepted, in words',
      5,
      PARAPHRASE,
      STUDY_LIMITS.maxWords,
      'the fewest words',
    ),
  },
  maxWords: {
    ...count(
      'max-words',
      'Most words',
      'the longest story accepted, in words',
      120,
      PARAPHRASE,
      STUDY_LIMITS.maxWords,
      'the most words',
    ),
    check: (v: unknown, def: Readonly<Record<string, unknown>>, fail: Fail) => {
      if (!isWhole(v, 1, STUDY_LIMITS.maxWords)) {
        return fail('', `the most words must be a whole number from 1 to ${STUDY_LIMITS.maxWords}`);
      }
      if (typeof def.minWords === 'number' && def.minWords > v) {
        fail('', `the most words (${v}) must not be fewer than the fewest words (${def.minWords})`);
      }
    },
  },

  // ---- review studies ----
  reviewsPerStory: count(
    'reviews-per-story',
    'Reviews per story',
    'how many people review each story (the results server stops serving a story once it has them)',
    3,
    REVIEW,
    STUDY_LIMITS.maxReviewsPerStory,
    'reviews per story',
  ),
  reviewsPerParticipant: {
    ...count(
      'reviews-per-participant',
      'Stories per participant',
      'how many stories each participant reviews',
      3,
      REVIEW,
      STUDY_LIMITS.maxReviewsPerParticipant,
      'stories per participant',
    ),
    check: (v: unknown, def: Readonly<Record<string, unknown>>, fail: Fail) => {
      const max = STUDY_LIMITS.maxReviewsPerParticipant;
      if (!isWhole(v, 1, max)) return fail('', `stories per participant must be a whole number from 1 to ${max}`);
      const n = storiesOf(def).length;
      if (def.kind === 'review' && n > 0 && v > n) {
        fail('', `each participant cannot review ${v} stories: the study embeds only ${n}`);
      }
    },
  },
  sourceStudy: {
    flag: 'source-study',
    input: 'text',
    kinds: REVIEW,
    label: 'Stories from study',
    help: 'the id of the paraphrase study whose stories the results server hands out for review (with --sink server)',
    default: '',
    read: (t) => t.trim(),
    write: (v) => v,
    check: (v, def, fail) => {
      if (typeof v !== 'string' || (v !== '' && !STUDY_ID_PATTERN.test(v))) {
        return fail('', 'the source study must be empty or a study id (1–64 letters, digits, "-" or "_")');
      }
      if (v === '' || def.kind !== 'review') return;
      if (v === def.studyId) fail('', 'a review study cannot review its own stories; name the paraphrase study');
      if (!sendsToServer(def)) {
        fail(
          '',
          'stories of another study are handed out by the results server: add --sink server, or embed the stories instead (--stories FILE)',
        );
      }
      if (storiesOf(def).length > 0) fail('', 'give either a source study or embedded stories, not both');
      // Inside JATOS the page is JATOS's: there is no results server beside it to hand out stories.
      if (sinksOf(def).some((x) => isRecord(x) && x.kind === 'jatos')) {
        fail(
          '',
          'stories from the results server cannot be fetched inside JATOS: for a JATOS study embed the stories (--stories FILE) instead',
        );
      }
    },
  },
  reviewStories: {
    flag: 'stories',
    input: 'stories',
    kinds: REVIEW,
    label: 'Stories to review',
    help: 'a file of collected stories to embed in the link (a results export, CSV or JSON, or a stories file the designer saved); for studies without the results server',
    default: [] as readonly EmbeddedStory[],
    read: (t): unknown => {
      try {
        return t.trim() === '' ? [] : (JSON.parse(t) as unknown);
      } catch {
        return t;
      }
    },
    write: (v) => (v.length === 0 ? '' : JSON.stringify(v)),
    check: (v, def, fail) => {
      checkStories(v, fail);
      if (def.kind === 'review' && Array.isArray(v) && v.length === 0 && def.sourceStudy === '') {
        fail(
          '',
          'a review study needs stories to review: embed them (--stories FILE) or name the paraphrase study the results server serves them from (--source-study ID with --sink server)',
        );
      }
    },
  },
} satisfies { readonly [F in StudyOptionField]: StudyOption<F> };

/** The table, keyed by field; each entry typed by its own field. */
export const STUDY_OPTIONS: { readonly [F in StudyOptionField]: StudyOption<F> } = OPTION_TABLE;

/** Every field of the table, in the definition's order. */
export const STUDY_OPTION_FIELDS = Object.keys(OPTION_TABLE) as StudyOptionField[];

/** The table's entry for a field. */
export function studyOption<F extends StudyOptionField>(field: F): StudyOption<F> {
  return STUDY_OPTIONS[field];
}

/** The kind of an (unchecked) definition: `solve` when it names none or an unknown one (that is its own problem). */
export const kindOf = (def: Readonly<Record<string, unknown>>): StudyKind =>
  STUDY_KINDS.includes(def.kind as StudyKind) ? (def.kind as StudyKind) : 'solve';

/** A setting's default in a study of this kind. */
export function optionDefault<F extends StudyOptionField>(field: F, kind: StudyKind): StudyDefinition[F] {
  const o = studyOption(field);
  const own = o.kindDefaults?.[kind];
  return own === undefined ? o.default : own;
}

/** Whether a setting belongs to studies of this kind (the designer shows only those). */
export const optionFits = (field: StudyOptionField, kind: StudyKind): boolean =>
  STUDY_OPTIONS[field].kinds?.includes(kind) ?? true;

/** Equal as JSON values (the link's notion of "the same setting"). */
const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Runs one option's check, reporting its problems under its field (or the dotted field it names).
 * A setting of other kinds of study must keep its default: a value given for it is refused with
 * the kinds it belongs to, rather than silently ignored.
 */
export function checkOption(field: StudyOptionField, def: Readonly<Record<string, unknown>>, fail: Fail): void {
  const o = STUDY_OPTIONS[field];
  const kind = kindOf(def);
  if (!optionFits(field, kind)) {
    if (!sameValue(def[field], optionDefault(field, kind))) {
      const kinds = (o.kinds ?? []).map((k) => KIND_NAMES[k]).join(' and ');
      fail(field, `“${o.label}” (--${o.flag}) belongs to ${kinds} studies; a ${KIND_NAMES[kind]} study leaves it out`);
    }
    return;
  }
  o.check(def[field], def, (at, message) => fail(at === '' ? field : at, message));
}

// ---- conditions on the command line ----

/**
 * The flags of conditions: `--condition` (repeatable, one condition each) or the four flags of a
 * single condition. Declared here with their syntax, which the CLI reads and the designer writes.
 */
export const CONDITION_FLAGS = {
  condition:
    'a condition, repeatable: ID[,limit=S][,overall=S][,display=text|text+drawing][,scratchpad] (replaces the single condition the next four flags describe)',
  'time-limit': 'one timed condition ("timed") with this many seconds per puzzle',
  'overall-limit': 'seconds for all main trials together (the single condition)',
  display: 'what the single condition shows: text or text+drawing',
  scratchpad: 'give the single condition a scratchpad',
} as const;

/** The id of the single condition the four flags describe: "timed" with a limit, else the default's. */
const singleId = (c: Pick<StudyCondition, 'perPuzzleLimitS' | 'overallLimitS'>, untimedId: string) =>
  c.perPuzzleLimitS === null && c.overallLimitS === null ? untimedId : 'timed';

/** The single condition the flags `--time-limit`, `--overall-limit`, `--display`, `--scratchpad` describe. */
export function singleCondition(
  values: { timeLimit?: string; overallLimit?: string; display: string; scratchpad: boolean },
  untimed: StudyCondition,
): StudyCondition {
  const perPuzzleLimitS = values.timeLimit === undefined ? null : readNumber(values.timeLimit);
  const overallLimitS = values.overallLimit === undefined ? null : readNumber(values.overallLimit);
  return {
    id: singleId({ perPuzzleLimitS, overallLimitS }, untimed.id),
    perPuzzleLimitS,
    overallLimitS,
    display: values.display as Display,
    scratchpad: values.scratchpad,
  };
}

/**
 * `ID[,limit=S][,overall=S][,display=…][,scratchpad]` → a condition (checked later with the
 * rest), or the message for a part that is not a condition setting.
 */
export function readConditionArg(arg: string, untimed: StudyCondition): StudyCondition | { problem: string } {
  const [id = '', ...parts] = arg.split(',');
  const c: Record<string, unknown> = { ...untimed, id: id.trim() };
  for (const part of parts) {
    const [key = '', value] = part.split('=', 2).map((s) => s.trim());
    if (key === 'limit' && value !== undefined) c.perPuzzleLimitS = value === 'none' ? null : readNumber(value);
    else if (key === 'overall' && value !== undefined) c.overallLimitS = value === 'none' ? null : readNumber(value);
    else if (key === 'display' && value !== undefined) c.display = value;
    else if (key === 'scratchpad' && value === undefined) c.scratchpad = true;
    else {
      return {
        problem: `"${part}" is not a condition setting (limit=S, overall=S, display=text|text+drawing, scratchpad)`,
      };
    }
  }
  return c as unknown as StudyCondition;
}

/**
 * The `study link` words for a study's conditions, given the default condition: none when they are
 * the default, the single-condition flags when they describe it, else one `--condition` each.
 */
export function conditionArgs(conditions: readonly StudyCondition[], untimed: StudyCondition): string[] {
  const [only] = conditions;
  if (conditions.length === 1 && only && JSON.stringify(only) === JSON.stringify(untimed)) return [];
  if (conditions.length === 1 && only && only.id === singleId(only, untimed.id)) {
    const args: string[] = [];
    if (only.perPuzzleLimitS !== null) args.push('--time-limit', String(only.perPuzzleLimitS));
    if (only.overallLimitS !== null) args.push('--overall-limit', String(only.overallLimitS));
    if (only.display !== untimed.display) args.push('--display', only.display);
    if (only.scratchpad) args.push('--scratchpad');
    return args;
  }
  return conditions.flatMap((c) => {
    const parts = [c.id];
    if (c.perPuzzleLimitS !== null) parts.push(`limit=${c.perPuzzleLimitS}`);
    if (c.overallLimitS !== null) parts.push(`overall=${c.overallLimitS}`);
    if (c.display !== untimed.display) parts.push(`display=${c.display}`);
    if (c.scratchpad) parts.push('scratchpad');
    return ['--condition', parts.join(',')];
  });
}

/**
 * The `study link` words for every option that differs from its default (k, per-k and seed
 * always, so the line says what the study is), in the table's order.
 */
export function optionArgs(def: StudyDefinition): string[] {
  const kind = kindOf(def as unknown as Record<string, unknown>);
  const always = ALWAYS_SAID[kind];
  return STUDY_OPTION_FIELDS.flatMap(<F extends StudyOptionField>(field: F): string[] => {
    const o = studyOption(field);
    const value = def[field];
    const same = sameValue(value, optionDefault(field, kind));
    if (!optionFits(field, kind) || (same && !always.includes(field))) return [];
    if (o.input === 'switch') return [value ? `--${o.flag}` : `--no-${o.flag}`];
    // An embedded story list is too long for a command line: it goes in a file beside it.
    if (o.input === 'stories') return [`--${o.flag}`, storiesFileName(def.studyId)];
    return [`--${o.flag}`, o.write(value)];
  });
}

/** The settings `optionArgs` always writes, per kind, so the command line says what the study is. */
const ALWAYS_SAID: { readonly [K in StudyKind]: readonly StudyOptionField[] } = {
  solve: ['k', 'itemsPerK', 'seed'],
  paraphrase: ['seed', 'clauseKs', 'clausesPerParticipant'],
  review: ['seed', 'reviewsPerParticipant'],
};

/** The file the designer saves a review study's embedded stories in, which its command line names. */
export const storiesFileName = (studyId: string) => `${studyId}.stories.json`;
