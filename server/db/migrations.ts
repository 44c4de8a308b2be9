/**
 * The schema of the results database, one step per version: step i takes `PRAGMA user_version`
 * from i to i + 1. A step, once released, never changes (databases in the field have run it);
 * changes are new steps. connection.ts runs the steps a database lacks when it is opened.
 */

/** The released steps; exported so a test can pin their text. */
export const MIGRATIONS: readonly string[] = [
  // Written out, not derived from the column table: a released step never changes, and a column
  // added to the table comes with a step of its own.
  `CREATE TABLE studies (
     study_id TEXT PRIMARY KEY,
     token TEXT NOT NULL,
     definition TEXT NOT NULL,
     registered_at TEXT NOT NULL
   ) STRICT;
   CREATE TABLE sessions (
     session_id TEXT PRIMARY KEY,
     study_id TEXT NOT NULL REFERENCES studies (study_id),
     participant_id TEXT NOT NULL,
     condition TEXT NOT NULL,
     user_agent TEXT NOT NULL,
     screen TEXT NOT NULL,
     started_at TEXT NOT NULL,
     received_at TEXT NOT NULL
   ) STRICT;
   CREATE INDEX sessions_by_study ON sessions (study_id);
   CREATE TABLE trials (
     study_id TEXT NOT NULL,
     session_id TEXT NOT NULL,
     participant_id TEXT NOT NULL,
     condition TEXT NOT NULL,
     trial_index INTEGER NOT NULL,
     phase TEXT NOT NULL,
     puzzle_id TEXT NOT NULL,
     seed INTEGER NOT NULL,
     k INTEGER NOT NULL,
     task INTEGER NOT NULL,
     strict INTEGER NOT NULL CHECK (strict IN (0, 1)),
     query_a TEXT NOT NULL,
     query_b TEXT NOT NULL,
     gold TEXT NOT NULL,
     response TEXT NOT NULL,
     correct INTEGER NOT NULL CHECK (correct IN (0, 1)),
     difficulty INTEGER,
     rt_ms INTEGER NOT NULL,
     ended_on TEXT NOT NULL,
     time_limit_s INTEGER,
     answer_changes INTEGER NOT NULL,
     hidden_ms INTEGER NOT NULL,
     resumed INTEGER NOT NULL CHECK (resumed IN (0, 1)),
     started_at TEXT NOT NULL,
     answered_at TEXT NOT NULL,
     story TEXT NOT NULL,
     prolific_study_id TEXT NOT NULL,
     prolific_session_id TEXT NOT NULL,
     received_at TEXT NOT NULL,
     PRIMARY KEY (session_id, trial_index),
     FOREIGN KEY (study_id) REFERENCES studies (study_id)
   ) STRICT, WITHOUT ROWID;
   CREATE INDEX trials_by_study ON trials (study_id, session_id, trial_index);`,
  // Issued sessions (server/sessions.ts). Studies registered before keep accepting browser-made
  // session ids ('browser'); a study without a study_access row takes NEW_STUDY_SESSIONS.
  `CREATE TABLE study_access (
     study_id TEXT PRIMARY KEY REFERENCES studies (study_id),
     sessions TEXT NOT NULL CHECK (sessions IN ('issued', 'browser')),
     closed INTEGER NOT NULL DEFAULT 0 CHECK (closed IN (0, 1)),
     max_sessions INTEGER CHECK (max_sessions IS NULL OR max_sessions >= 0),
     next_participant INTEGER NOT NULL DEFAULT 0
   ) STRICT;
   INSERT INTO study_access (study_id, sessions) SELECT study_id, 'browser' FROM studies;
   CREATE TABLE issued_sessions (
     session_id TEXT PRIMARY KEY,
     study_id TEXT NOT NULL REFERENCES studies (study_id),
     secret TEXT NOT NULL,
     participant INTEGER NOT NULL,
     condition TEXT,
     participant_id TEXT NOT NULL,
     prolific_study_id TEXT NOT NULL,
     prolific_session_id TEXT NOT NULL,
     issued_at TEXT NOT NULL
   ) STRICT;
   CREATE UNIQUE INDEX issued_by_participant ON issued_sessions (study_id, participant_id) WHERE participant_id <> '';
   CREATE INDEX issued_by_study ON issued_sessions (study_id);`,
  // The live review queue (server/reviewQueue.ts): which stories of a paraphrase study
  // were handed to which issued session of a review study, in order. A new table only: existing
  // studies, sessions and rows are untouched.
  `CREATE TABLE review_assignments (
     session_id TEXT NOT NULL REFERENCES issued_sessions (session_id),
     position INTEGER NOT NULL CHECK (position >= 0),
     study_id TEXT NOT NULL REFERENCES studies (study_id),
     story_id TEXT NOT NULL,
     source_session TEXT NOT NULL,
     source_trial INTEGER NOT NULL,
     issued_at TEXT NOT NULL,
     expires_at TEXT NOT NULL,
     PRIMARY KEY (session_id, position),
     UNIQUE (session_id, story_id)
   ) STRICT;
   CREATE INDEX review_by_story ON review_assignments (study_id, story_id);`,
  // Sessions that hold across devices and against one client (src/study/delivery/sessionModel.ts): a
  // session's later devices, the device that sent each row (0: the first, in \`sessions\`), the
  // issued sessions' resume codes, the (keyed hash of the) address that asked, slots given back by
  // idle sessions, and the limits' buckets kept across restarts. Existing rows keep their meaning:
  // earlier sessions have no resume code and their participant numbers are never handed out again.
  `CREATE TABLE session_devices (
     session_id TEXT NOT NULL,
     device INTEGER NOT NULL CHECK (device >= 1),
     user_agent TEXT NOT NULL,
     screen TEXT NOT NULL,
     started_at TEXT NOT NULL,
     received_at TEXT NOT NULL,
     PRIMARY KEY (session_id, device)
   ) STRICT, WITHOUT ROWID;
   ALTER TABLE trials ADD COLUMN device INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE issued_sessions ADD COLUMN resume_code TEXT;
   ALTER TABLE issued_sessions ADD COLUMN address TEXT NOT NULL DEFAULT '';
   ALTER TABLE issued_sessions ADD COLUMN from_counter INTEGER NOT NULL DEFAULT 0 CHECK (from_counter IN (0, 1));
   ALTER TABLE issued_sessions ADD COLUMN released_at TEXT;
   CREATE UNIQUE INDEX issued_by_code ON issued_sessions (study_id, resume_code) WHERE resume_code IS NOT NULL;
   CREATE INDEX issued_by_address ON issued_sessions (study_id, address, issued_at);
   CREATE TABLE free_participants (
     study_id TEXT NOT NULL REFERENCES studies (study_id),
     participant INTEGER NOT NULL,
     released_from TEXT NOT NULL,
     PRIMARY KEY (study_id, participant)
   ) STRICT, WITHOUT ROWID;
   CREATE TABLE server_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
   INSERT INTO server_meta (name, value) VALUES ('address_key', lower(hex(randomblob(32))));
   CREATE TABLE limit_buckets (
     name TEXT NOT NULL,
     key TEXT NOT NULL,
     tokens REAL NOT NULL,
     at_ms INTEGER NOT NULL,
     PRIMARY KEY (name, key)
   ) STRICT, WITHOUT ROWID;`,
  // An adaptive study's running estimate stored with each main row (issue 32): the threshold k and
  // its 95% interval after the trial, the procedure and why the run stopped. The server computes
  // them from the session's rows (store.ts); rows stored before keep them empty (NULL, '').
  `ALTER TABLE trials ADD COLUMN threshold_k REAL;
   ALTER TABLE trials ADD COLUMN threshold_low REAL;
   ALTER TABLE trials ADD COLUMN threshold_high REAL;
   ALTER TABLE trials ADD COLUMN adaptive_procedure TEXT NOT NULL DEFAULT ''
     CHECK (adaptive_procedure IN ('', 'staircase', 'quest'));
   ALTER TABLE trials ADD COLUMN adaptive_stop TEXT NOT NULL DEFAULT ''
     CHECK (adaptive_stop IN ('', 'trials', 'interval'));`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;
