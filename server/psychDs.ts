/**
 * The results as a psych-DS dataset (https://github.com/psych-ds/psych-DS, schema 1.1.0):
 *
 * ```
 * <out>/dataset_description.json            schema.org Dataset: name, description, variableMeasured, …
 * <out>/data/study-<key>_data.csv           one per study: the bytes of the CSV export of that study
 * <out>/materials/study-<key>_definition.json   the study definition that was run
 * ```
 *
 * psych-DS keyword values are letters and digits only, while a study id may hold `-` and `_`:
 * the file key is the id without them (a number appended when two ids would meet); the
 * `study_id` column and the definition keep the real id.
 *
 * The folder appears whole or not at all: it is written as a temporary folder beside `out` and
 * renamed into place (with `force`, an existing `out` is moved aside first and removed after).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { StudyDefinition } from '../src/study/definition';
import { RESULT_COLUMNS, SESSION_COLUMNS } from '../src/study/results';
import { ExportReader } from './export';
import { OutputExistsError, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './files';
import type { ResultStore } from './store';

/** The psych-DS schema version the dataset follows. */
export const PSYCH_DS_SCHEMA_VERSION = '1.1.0';

type Column = (typeof RESULT_COLUMNS)[number] | (typeof SESSION_COLUMNS)[number];

/** What each exported column means, and its unit where it has one (a column added to the export must be described here). */
export const COLUMN_MEANINGS = {
  study_id: { description: 'The study id of the CLUTRR Lab study definition (materials/).' },
  session_id: { description: "One participant's run of the study, made by the participant's browser." },
  participant_id: { description: "Prolific's PROLIFIC_PID or the JATOS worker id; empty when none was given." },
  condition: { description: 'The id of the condition the session was assigned to.' },
  trial_index: { description: 'The position of the trial in the session, from 0.' },
  phase: { description: 'practice (with feedback), main, or attention (an attention check).' },
  puzzle_id: { description: 'The id of the generated puzzle (stable for a study seed).' },
  seed: { description: "The puzzle generator's seed (32-bit unsigned integer): the same seed gives the same puzzle." },
  k: { description: 'The number of kinship hops in the story (story length).', unitText: 'hops' },
  task: { description: 'The CLUTRR task id (which noise facts the story holds).' },
  strict: { description: 'true when only strictly solvable puzzles were used (sound rules).' },
  query_a: { description: 'The first person named in the question.' },
  query_b: { description: 'The second person named in the question.' },
  gold: { description: 'The correct relation word: query_b is the gold of query_a.' },
  response: { description: 'The relation word the participant chose; empty after a timeout or a skip.' },
  correct: { description: 'true when response equals gold.' },
  difficulty: { description: 'The difficulty rating the participant gave, 1 (easy) to 5 (hard); empty when none.' },
  rt_ms: { description: 'Time from the story being shown to the answer being submitted.', unitText: 'ms' },
  ended_on: { description: 'How the trial ended: response, timeout or skipped.' },
  time_limit_s: { description: 'The time limit per puzzle in force; empty when untimed.', unitText: 's' },
  answer_changes: { description: 'How often the participant changed the chosen answer before submitting.' },
  hidden_ms: { description: 'Time the browser tab was hidden during the trial.', unitText: 'ms' },
  resumed: { description: 'true when the trial was interrupted (reload, closed tab) and shown again.' },
  started_at: { description: 'When the trial was shown, ISO 8601 UTC.' },
  answered_at: { description: 'When the trial ended, ISO 8601 UTC.' },
  story: { description: 'The story text exactly as shown.' },
  prolific_study_id: { description: "Prolific's STUDY_ID; empty outside Prolific." },
  prolific_session_id: { description: "Prolific's SESSION_ID; empty outside Prolific." },
  user_agent: { description: "The browser's user agent string for the session." },
  screen: { description: 'The screen as widthxheight@devicePixelRatio, e.g. 390x844@3.', unitText: 'CSS px' },
} as const satisfies Record<Column, { description: string; unitText?: string }>;

/** The columns of every data file, in order. */
export const PSYCH_DS_COLUMNS: readonly Column[] = [...RESULT_COLUMNS, ...SESSION_COLUMNS];

export interface PropertyValue {
  readonly '@type': 'PropertyValue';
  readonly name: string;
  readonly description: string;
  readonly unitText?: string;
}

export interface DatasetDescription {
  readonly '@context': 'https://schema.org';
  readonly '@type': 'Dataset';
  readonly schemaVersion: string;
  readonly name: string;
  readonly description: string;
  readonly variableMeasured: readonly PropertyValue[];
  readonly keywords: readonly string[];
  readonly dateCreated: string;
}

/** One sentence per study, in words, from its definition. */
export function describeStudy(d: StudyDefinition): string {
  const conditions = d.conditions.map((c) => c.id).join(', ');
  return (
    `Study "${d.studyId}": CLUTRR kinship-reasoning puzzles generated by CLUTRR Lab from seed ${d.seed}, ` +
    `story lengths k = ${d.k.join(', ')}, tasks ${d.tasks.join(', ')}, ${d.itemsPerK} main item(s) per k and task, ` +
    `${d.strict ? 'strictly solvable puzzles only' : 'puzzles not restricted to strictly solvable ones'}, ` +
    `${d.practice} practice item(s) with feedback, ${d.attentionChecks} attention check(s), ` +
    `conditions: ${conditions}. The full definition is materials/study-${studyKey(d.studyId)}_definition.json.`
  );
}

/** The dataset_description.json of these studies (sorted by id). */
export function datasetDescription(studies: readonly StudyDefinition[], now = new Date()): DatasetDescription {
  const ids = studies.map((s) => s.studyId);
  return {
    '@context': 'https://schema.org',
    '@type': 'Dataset',
    schemaVersion: PSYCH_DS_SCHEMA_VERSION,
    name: ids.length === 1 ? `CLUTRR Lab study ${ids[0]}` : `CLUTRR Lab studies ${ids.join(', ')}`,
    description:
      studies.length === 0
        ? 'CLUTRR Lab study results (no study registered).'
        : `Trial-level results of human participants solving CLUTRR kinship-reasoning puzzles (one row per trial). ${studies.map(describeStudy).join(' ')}`,
    variableMeasured: PSYCH_DS_COLUMNS.map((name) => {
      const meaning: { description: string; unitText?: string } = COLUMN_MEANINGS[name];
      return {
        '@type': 'PropertyValue',
        name,
        description: meaning.description,
        ...(meaning.unitText === undefined ? {} : { unitText: meaning.unitText }),
      };
    }),
    keywords: ['CLUTRR', 'kinship reasoning', 'relational reasoning'],
    dateCreated: now.toISOString(),
  };
}

/** A study id as a psych-DS keyword value (letters and digits); `taken` avoids two ids meeting. */
export function studyKey(studyId: string, taken: ReadonlySet<string> = new Set()): string {
  const base = studyId.replace(/[^a-zA-Z0-9]/g, '') || 'study';
  let key = base;
  for (let n = 2; taken.has(key); n++) key = `${base}${n}`;
  return key;
}

/** The psych-DS file-name rule for data files (the spec's fileRegex for Datafile). */
export const DATAFILE_NAME = /^([a-z]+-[a-zA-Z0-9]+)(_[a-z]+-[a-zA-Z0-9]+)*_data\.csv$/;

export interface PsychDsResult {
  readonly sessions: number;
  readonly rows: number;
  /** Paths inside the folder, in the order written. */
  readonly files: readonly string[];
}

/** The registered study definitions (one study, or all), sorted by id. */
export function studyDefinitions(store: ResultStore, studyId?: string): StudyDefinition[] {
  const rows = store.db
    .prepare<{ studyId?: string }, { definition: string }>(
      `SELECT definition FROM studies${studyId === undefined ? '' : ' WHERE study_id = @studyId'} ORDER BY study_id`,
    )
    .all(studyId === undefined ? {} : { studyId });
  return rows.map((r) => JSON.parse(r.definition) as StudyDefinition);
}

/**
 * Writes the psych-DS folder `out` (all or nothing). Without `force` an existing `out` is
 * refused with OutputExistsError.
 */
export function writePsychDs(
  store: ResultStore,
  out: string,
  options: { force: boolean; studyId?: string; now?: Date },
): PsychDsResult {
  const target = path.resolve(out);
  if (!options.force && existsSync(target)) throw new OutputExistsError(`${out} exists; give --force to replace it`);
  const parent = path.dirname(target);
  const temp = path.join(parent, `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.partial`);
  const reader = ExportReader.open(store);
  const cleanUp = () => rmSync(temp, { recursive: true, force: true });
  const onSignal = (signal: NodeJS.Signals) => {
    cleanUp();
    process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
  };
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  for (const s of signals) process.on(s, onSignal);
  try {
    mkdirSync(temp, { mode: PRIVATE_DIR_MODE });
    mkdirSync(path.join(temp, 'data'), { mode: PRIVATE_DIR_MODE });
    mkdirSync(path.join(temp, 'materials'), { mode: PRIVATE_DIR_MODE });
    const definitions = studyDefinitions(store, options.studyId);
    const files: string[] = [];
    const counted = { rows: 0 };
    const taken = new Set<string>();
    for (const def of definitions) {
      const key = studyKey(def.studyId, taken);
      taken.add(key);
      const dataFile = path.join('data', `study-${key}_data.csv`);
      writeChunks(path.join(temp, dataFile), reader.chunks('csv', def.studyId, counted));
      files.push(dataFile);
      const defFile = path.join('materials', `study-${key}_definition.json`);
      writeChunks(path.join(temp, defFile), [`${JSON.stringify(def, null, 2)}\n`]);
      files.push(defFile);
    }
    writeChunks(path.join(temp, 'dataset_description.json'), [
      `${JSON.stringify(datasetDescription(definitions, options.now), null, 2)}\n`,
    ]);
    files.push('dataset_description.json');
    const sessions = reader.sessionCount(options.studyId);
    if (existsSync(target)) {
      if (!options.force) throw new OutputExistsError(`${out} appeared while writing; give --force to replace it`);
      const aside = `${temp}.old`;
      renameSync(target, aside);
      renameSync(temp, target);
      rmSync(aside, { recursive: true, force: true });
    } else renameSync(temp, target);
    return { sessions, rows: counted.rows, files };
  } catch (e) {
    cleanUp();
    throw e;
  } finally {
    for (const s of signals) process.off(s, onSignal);
    reader.close();
  }
}

function writeChunks(file: string, chunks: Iterable<string>): void {
  const fd = openSync(file, 'wx', PRIVATE_FILE_MODE);
  try {
    for (const chunk of chunks) {
      const buffer = Buffer.from(chunk, 'utf8');
      for (let at = 0; at < buffer.length;) at += writeSync(fd, buffer, at, buffer.length - at);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
