/**
 * The study's options, declared once (as datasetOptions.ts does for datasets): for every setting
 * of a StudyDefinition but its conditions and sinks, the field, the `study link` flag, the
 * designer's label, the help both show, the default (DEFAULT_STUDY is built from these), how a
 * typed value is read and written back, and the check. `checkStudyDefinition` runs the checks;
 * the CLI's flags, the designer's inputs and its generated command line are made from this table.
 * Conditions have their own flags (commandLine.ts) and sinks their own table (sinks.ts).
 *
 * Imports the definition's types (types.ts), never definition.ts, which builds its defaults and
 * checks from this table.
 */
import { TASK_IDS, type TaskId } from '../../core/puzzle/tasks';
import {
  checkStories,
  choice,
  CODE,
  count,
  isRecord,
  isWhole,
  mainItems,
  markdown,
  readList,
  readNumber,
  sendsToServer,
  sinksOf,
  storiesOf,
  text,
  whole,
  type StudyOption,
  type StudyOptionField,
} from './optionParts';
import { isHttpUrl } from './sinks';
import type { EmbeddedStory, Fail, StudyDefinition, StudyOrder } from './types';
import {
  ADAPTIVE_PROCEDURES,
  ASSIGNMENTS,
  CLAUSE_GENDERS,
  CLAUSE_KS,
  KIND_NAMES,
  KIND_TRAITS,
  KIND_WORDS,
  kindOf,
  ONLINE_SESSIONS_PER_ADDRESS,
  PARTICIPATION,
  RESUME_POLICIES,
  STUDY_ID_PATTERN,
  STUDY_LIMITS,
  TEMPLATE_SPLITS,
  type StudyKind,
} from './vocabulary';

export { isWhole, readNumber, type StudyInput, type StudyOption, type StudyOptionField } from './optionParts';

const SOLVE: readonly StudyKind[] = ['solve'];
const PARAPHRASE: readonly StudyKind[] = ['paraphrase'];
const REVIEW: readonly StudyKind[] = ['review'];
const ADAPTIVE: readonly StudyKind[] = ['adaptive'];
/** Settings of the puzzles themselves, which an adaptive study shares with puzzle solving. */
const PUZZLES: readonly StudyKind[] = ['solve', 'adaptive'];
/** An adaptive study's default story lengths: the generator's whole range from 2. */
const ADAPTIVE_KS = [2, 3, 4, 5, 6, 7, 8, 9, 10];

/** The (unchecked) study is of a kind whose participants review stories. */
const reviewsStories = (def: Readonly<Record<string, unknown>>) => KIND_TRAITS[kindOf(def)].reviewsStories;

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

/**
 * The table, in the definition's field order (problems are listed in this order). `fail('', …)`
 * in a check means the option's own field.
 */
const OPTION_TABLE = {
  kind: {
    ...choice(
      'kind',
      'Kind of study',
      'what participants do: solve (puzzles), paraphrase (write stories from facts), review (rate others’ stories) or adaptive (puzzles whose length follows the answers)',
      'solve',
      KIND_WORDS,
      `the kind of study must be one of ${KIND_WORDS.join(', ')}`,
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
    kinds: PUZZLES,
    kindDefaults: { adaptive: ADAPTIVE_KS },
    input: 'list',
    label: 'Story lengths k',
    help: `story lengths, comma-separated (each 1..${STUDY_LIMITS.maxK})`,
    default: [2, 3, 4],
    read: readList,
    write: (v) => v.join(','),
    check: (k, def, fail) => {
      if (!Array.isArray(k) || k.length === 0 || !k.every((x) => isWhole(x, 1, STUDY_LIMITS.maxK))) {
        fail('', `k must be whole numbers from 1 to ${STUDY_LIMITS.maxK} (at least one)`);
      } else if (new Set(k).size !== k.length) fail('', 'each k value may be listed only once');
      else if (kindOf(def) === 'adaptive' && k.length < 2) {
        fail('', 'an adaptive study needs at least two story lengths k to move between');
      }
    },
  },
  tasks: {
    flag: 'tasks',
    kinds: PUZZLES,
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
    kinds: PUZZLES,
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
    kinds: PUZZLES,
    ...choice(
      'template-split',
      'Paraphrases',
      'paraphrases: all, train or test',
      'all',
      TEMPLATE_SPLITS,
      `the template split must be one of ${TEMPLATE_SPLITS.join(', ')}`,
    ),
  },
  practice: count(
    'practice',
    'Practice items',
    'practice items with feedback, before the main items',
    2,
    PUZZLES,
    STUDY_LIMITS.maxPractice,
    'practice items',
    0,
  ),
  attentionChecks: count(
    'attention-checks',
    'Attention checks',
    'attention checks spread among the main items',
    1,
    SOLVE,
    STUDY_LIMITS.maxAttentionChecks,
    'attention checks',
    0,
  ),
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
      if (reviewsStories(def) && n > 0 && v > n) {
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
      if (v === '' || !reviewsStories(def)) return;
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
      if (reviewsStories(def) && Array.isArray(v) && v.length === 0 && def.sourceStudy === '') {
        fail(
          '',
          'a review study needs stories to review: embed them (--stories FILE) or name the paraphrase study the results server serves them from (--source-study ID with --sink server)',
        );
      }
    },
  },
  adaptive: {
    kinds: ADAPTIVE,
    ...choice(
      'adaptive',
      'Adaptive procedure',
      'how each next story length is picked: staircase (2 right in a row: one hop longer; a wrong answer: one shorter; settles at 70.7% right) or quest (QUEST+: the k whose answer says most about the threshold)',
      'staircase',
      ADAPTIVE_PROCEDURES,
      `the adaptive procedure must be one of ${ADAPTIVE_PROCEDURES.join(', ')}`,
    ),
  },
  adaptiveTrials: count(
    'adaptive-trials',
    'Trials at most',
    'main trials at most: the run stops after this many answers (or earlier by the interval)',
    30,
    ADAPTIVE,
    STUDY_LIMITS.maxAdaptiveTrials,
    'adaptive trials',
    STUDY_LIMITS.minAdaptiveTrials,
  ),
  ciWidth: {
    flag: 'ci-width',
    kinds: ADAPTIVE,
    input: 'number',
    label: 'Stop at interval width (hops)',
    help: 'stop once the threshold’s 95% interval is at most this many hops wide (after 10 trials); 0: stop by trials only',
    default: 0,
    read: readNumber,
    write: (v) => String(v),
    check: (v, _def, fail) => {
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > STUDY_LIMITS.maxK) {
        fail('', `the interval width must be a number of hops from 0 to ${STUDY_LIMITS.maxK}`);
      }
    },
  },
  showEstimate: {
    flag: 'show-estimate',
    kinds: ADAPTIVE,
    input: 'switch',
    label: 'Show participants their estimate',
    help: 'the completion screen shows the participant their estimated threshold k and its interval',
    default: false,
    read: (t) => t === 'true',
    write: (v) => String(v),
    check: (v, _def, fail) => {
      if (typeof v !== 'boolean') fail('', 'show-estimate must be true or false');
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
export const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

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
