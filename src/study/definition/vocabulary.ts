/**
 * The study's words: the values a setting may take, the id patterns, the limits and what each kind
 * of study shows. A leaf: it imports nothing, so the definition, the options table, the clauses,
 * the result columns and the server can all name these words without importing one another.
 */

/**
 * What a study asks of its participants: solve puzzles (the original study), write paraphrases of
 * clauses (the paper's crowdsourcing task), or review others' paraphrases. Old links carry no kind
 * and are `solve` studies.
 */
export const KIND_WORDS = ['solve', 'paraphrase', 'review', 'adaptive'] as const;
export type StudyKind = (typeof KIND_WORDS)[number];

/** How each kind is named in sentences (problems, the designer, the CLI's summary). */
export const KIND_NAMES: { readonly [K in StudyKind]: string } = {
  solve: 'puzzle-solving',
  paraphrase: 'paraphrase',
  review: 'review',
  adaptive: 'adaptive',
};

/** The kind of an (unchecked) definition: `solve` when it names none or an unknown one (that is its own problem). */
export const kindOf = (def: Readonly<Record<string, unknown>>): StudyKind =>
  KIND_WORDS.includes(def.kind as StudyKind) ? (def.kind as StudyKind) : 'solve';

/** What a kind of study shows and reads, where the definition's checks depend on the kind. */
export interface KindTraits {
  /** Its conditions may show the drawing beside the text (`text+drawing`). */
  readonly drawing: boolean;
  /** Its conditions may give a scratchpad. */
  readonly scratchpad: boolean;
  /** Its participants review stories, embedded in the link or handed out from another study. */
  readonly reviewsStories: boolean;
}

/** The traits of each kind: the checks look these up rather than compare kinds. */
export const KIND_TRAITS = {
  solve: { drawing: true, scratchpad: true, reviewsStories: false },
  paraphrase: { drawing: false, scratchpad: false, reviewsStories: false },
  review: { drawing: false, scratchpad: false, reviewsStories: true },
  adaptive: { drawing: true, scratchpad: true, reviewsStories: false },
} as const satisfies { readonly [K in StudyKind]: KindTraits };

/**
 * How an adaptive study picks each next story length: a 2-down-1-up `staircase` (70.7% right) or
 * `quest` (QUEST+, the k whose answer is expected to say most about the threshold).
 */
export const ADAPTIVE_PROCEDURES = ['staircase', 'quest'] as const;
export type AdaptiveProcedure = (typeof ADAPTIVE_PROCEDURES)[number];

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

/** Where a trial stands in a participant's schedule: the `phase` column. */
export type Phase = 'practice' | 'main' | 'check';

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
  minAdaptiveTrials: 5,
  maxAdaptiveTrials: 200,
} as const;

/** Study and condition ids: what the study_id and condition columns and URLs take. */
export const STUDY_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** A clause id as `study link` and the rows write it: `c1.<relation words>.<genders>`. */
export const CLAUSE_ID_PATTERN = /^c1\.[a-z]+(-[a-z]+)*\.(male|female)(-(male|female))*$/;
/** A story's id: the `<session_id>/<trial_index>` of its paraphrase row. */
export const STORY_ID_PATTERN = /^[^/\s]{1,200}\/\d{1,6}$/;
