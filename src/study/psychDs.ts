/**
 * A study's results as a psych-DS dataset (https://github.com/psych-ds/psych-DS, schema 1.1.0),
 * the parts that need no file system: used by `results export --format psych-ds`
 * (server/psychDs.ts) and by the results dashboard's download (a ZIP of the same folder).
 *
 * ```
 * dataset_description.json                  schema.org Dataset: name, description, variableMeasured, …
 * data/study-<key>_data.csv                 one per study: the bytes of the CSV export of that study
 * materials/study-<key>_definition.json     the study definition that was run
 * ```
 *
 * psych-DS keyword values are letters and digits only, while a study id may hold `-` and `_`:
 * the file key is the id without them (a number appended when two ids would meet); the
 * `study_id` column and the definition keep the real id.
 */
import { strToU8, zipSync, type Zippable } from 'fflate';
import type { StudyDefinition } from './definition';
import { RESULT_COLUMNS, SESSION_COLUMNS } from './results';

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
  user_agent: {
    description:
      'The user agent string of the browser that answered the trial (a session may continue on another device).',
  },
  screen: {
    description: 'The screen of the device that answered the trial, as widthxheight@devicePixelRatio, e.g. 390x844@3.',
    unitText: 'CSS px',
  },
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
export function describeStudy(d: StudyDefinition, key = studyKey(d.studyId)): string {
  const conditions = d.conditions.map((c) => c.id).join(', ');
  return (
    `Study "${d.studyId}": CLUTRR kinship-reasoning puzzles generated by CLUTRR Lab from seed ${d.seed}, ` +
    `story lengths k = ${d.k.join(', ')}, tasks ${d.tasks.join(', ')}, ${d.itemsPerK} main item(s) per k and task, ` +
    `${d.strict ? 'strictly solvable puzzles only' : 'puzzles not restricted to strictly solvable ones'}, ` +
    `${d.practice} practice item(s) with feedback, ${d.attentionChecks} attention check(s), ` +
    `conditions: ${conditions}. The full definition is materials/study-${key}_definition.json.`
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
        : `Trial-level results of human participants solving CLUTRR kinship-reasoning puzzles (one row per trial). ${studyKeys(
            studies,
          )
            .map((key, i) => describeStudy(studies[i]!, key))
            .join(' ')}`,
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

/** The file keys of studies in this order (as the files are written: sorted by id). */
export function studyKeys(studies: readonly Pick<StudyDefinition, 'studyId'>[]): string[] {
  const taken = new Set<string>();
  return studies.map((s) => {
    const key = studyKey(s.studyId, taken);
    taken.add(key);
    return key;
  });
}

/** The psych-DS file-name rule for data files (the spec's fileRegex for Datafile). */
export const DATAFILE_NAME = /^([a-z]+-[a-zA-Z0-9]+)(_[a-z]+-[a-zA-Z0-9]+)*_data\.csv$/;

/** The files of a dataset, by path inside its folder, for these studies and their CSV exports. */
export function psychDsFiles(
  studies: readonly { readonly definition: StudyDefinition; readonly csv: string }[],
  now = new Date(),
): Map<string, string> {
  const files = new Map<string, string>();
  const sorted = [...studies].sort((a, b) => (a.definition.studyId < b.definition.studyId ? -1 : 1));
  const keys = studyKeys(sorted.map((s) => s.definition));
  for (const [i, { definition, csv }] of sorted.entries()) {
    const key = keys[i]!;
    files.set(`data/study-${key}_data.csv`, csv);
    files.set(`materials/study-${key}_definition.json`, definitionJson(definition));
  }
  files.set(
    'dataset_description.json',
    descriptionJson(
      sorted.map((s) => s.definition),
      now,
    ),
  );
  return files;
}

/** The definition file's text. */
export const definitionJson = (def: StudyDefinition) => `${JSON.stringify(def, null, 2)}\n`;

/** The dataset_description.json file's text. */
export const descriptionJson = (studies: readonly StudyDefinition[], now = new Date()) =>
  `${JSON.stringify(datasetDescription(studies, now), null, 2)}\n`;

/** A ZIP holding the dataset's files under one folder (`folder/`), for a download. */
export function psychDsZip(folder: string, files: ReadonlyMap<string, string>): Uint8Array {
  const tree: Zippable = {};
  for (const [file, text] of files) tree[`${folder}/${file}`] = strToU8(text);
  return zipSync(tree, { level: 6 });
}
