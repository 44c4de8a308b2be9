/**
 * The bytes users keep, pinned: study links of every kind, the results files the page and the
 * server write (CSV, JSON, psych-DS) and the schedules a study hands out. A restructuring keeps
 * every digest; a change that means to alter one of these files changes its digest here, in
 * the same commit, and says why.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withDefaults, type StudyDefinition } from '../src/study/definition/definition';
import { decodeStudyLink, encodeStudyLink } from '../src/study/definition/link';
import { parseCsv, writeCsv } from '../src/core/formats/csv';
import { psychDsFiles } from '../src/study/results/psychDs';
import { LATER_COLUMNS } from '../src/study/results/resultFields';
import { rowsToCsv, rowsToJson, type ResultRow } from '../src/study/results/results';
import { scheduleParticipant } from '../src/study/schedule/schedule';
import { studyTrialContent } from '../src/study/schedule/trialFacts';
import { ExportReader } from './export';
import { writePsychDs } from './psychDs';
import { ResultStore } from './store';
import { makeRow, makeSession, tempDirs } from './testServer';

const tempDir = tempDirs('clutrr-golden-');
const NOW = new Date('2026-11-28T12:00:00.000Z');
const digest = (text: string | Uint8Array) => createHash('sha256').update(text).digest('hex').slice(0, 16);

/**
 * A file as it was before the columns added since (LATER_COLUMNS: issue 32's estimate) existed:
 * those columns taken out of a CSV, a JSON export's rows and psych-DS's `variableMeasured`. The
 * digests of what is left are the ones pinned before, so the new columns are the only change.
 */
function withoutLater(name: string, text: string): string {
  const later = new Set<string>(LATER_COLUMNS);
  if (name.endsWith('.csv')) {
    const records = parseCsv(text);
    const keep = records[0]!.map((c, i) => (later.has(c) ? -1 : i)).filter((i) => i >= 0);
    return writeCsv(
      records.map((r) => keep.map((i) => r[i]!)),
      { lineEnding: '\r\n' },
    );
  }
  const doc = JSON.parse(text) as { rows?: Record<string, unknown>[]; variableMeasured?: { name: string }[] };
  if (name.endsWith('dataset_description.json'))
    doc.variableMeasured = doc.variableMeasured!.filter((v) => !later.has(v.name));
  else if (doc.rows) for (const r of doc.rows) for (const c of later) delete r[c];
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** One study of each kind, and solve studies that use the settings a link carries. */
const STUDIES: readonly StudyDefinition[] = [
  withDefaults({ studyId: 'golden-solve' }),
  withDefaults({
    studyId: 'golden-crossed',
    seed: 77,
    k: [2, 4, 6],
    tasks: [1, 3],
    itemsPerK: 3,
    practice: 2,
    attentionChecks: 1,
    order: { mode: 'counterbalanced', lists: 2 },
    conditions: [
      { id: 'untimed', perPuzzleLimitS: null, overallLimitS: null, display: 'text', scratchpad: false },
      { id: 'timed', perPuzzleLimitS: 45, overallLimitS: 1200, display: 'text+drawing', scratchpad: true },
    ],
    breakEvery: 5,
    completionCode: 'C0DE42',
    redirectUrl: 'https://example.org/done?c=C0DE42',
    participation: 'room',
    roomSessions: 30,
    claimMinutes: 20,
    sinks: [{ kind: 'server' }, { kind: 'download', instructions: 'Send the file to the lab.' }],
  }),
  withDefaults({ studyId: 'golden-paraphrase', kind: 'paraphrase', clauseKs: [2, 3], minWords: 5, maxWords: 40 }),
  withDefaults({
    studyId: 'golden-review',
    kind: 'review',
    sourceStudy: 'golden-paraphrase',
    reviewsPerStory: 2,
    sinks: [{ kind: 'server' }],
  }),
];

/** Rows of two studies with the cells that test escaping, quoting and empty session facts. */
function sampleRows(): { rows: ResultRow[]; sessions: ReturnType<typeof makeSession>[] } {
  const odd = ['=1+1', "'=already quoted", 'comma, "quote"\r\nline', '-minus', '@at', '\ttab', '', 'café ☕ 😀'];
  const rows = [
    ...[0, 1, 2, 3, 4].map((t) => makeRow('golden-solve', 's-b', t)),
    ...odd.map((story, t) => makeRow('golden-solve', 's-a', t, { story, response: story.slice(0, 50) })),
    ...[3, 1].map((t) => makeRow('golden-solve', 's-c', t, { difficulty: null, resumed: true })),
    makeRow('golden-crossed', 's-o', 0, { time_limit_s: 45, condition: 'timed', ended_on: 'timeout' }),
  ];
  return {
    rows,
    sessions: [
      makeSession('golden-solve', 's-b'),
      makeSession('golden-solve', 's-a'),
      makeSession('golden-crossed', 's-o'),
    ],
  };
}

function parts(): { full: Record<string, string>; before: Record<string, string> } {
  const out: Record<string, string> = {};
  const before: Record<string, string> = {};
  /** Pins a file's digest, and that of the file without the later columns. */
  const pin = (key: string, files: readonly (readonly [string, string])[]) => {
    out[key] = digest(files.map(([name, text]) => (files.length === 1 ? text : `${name}\n${text}`)).join('\u0000'));
    before[key] = digest(
      files
        .map(([name, text]) => {
          const old = /\.(csv|json)$/.test(name) && !name.startsWith('materials') ? withoutLater(name, text) : text;
          return files.length === 1 ? old : `${name}\n${old}`;
        })
        .join('\u0000'),
    );
  };
  for (const def of STUDIES) {
    const link = encodeStudyLink(def);
    const back = decodeStudyLink(link);
    expect(back.ok).toBe(true);
    out[`link ${def.studyId}`] = digest(link);
  }
  for (const def of STUDIES.filter((d) => d.kind === 'solve')) {
    const lines = [0, 1, 2, 3].map((p) => {
      const s = scheduleParticipant(def, { participantNumber: p, sessionSeed: `golden-${p}` });
      return JSON.stringify({
        condition: s.condition,
        trials: s.trials.map((t) => {
          const c = studyTrialContent(def, t.item);
          return [t.trialIndex, t.item.puzzleId, t.item.k, t.item.seed, c.story, c.gold, c.queryA, c.queryB];
        }),
      });
    });
    out[`schedule ${def.studyId}`] = digest(lines.join('\n'));
  }
  const { rows, sessions } = sampleRows();
  pin('page csv', [['page.csv', rowsToCsv(rows, sessions)]]);
  pin('page json', [['page.json', rowsToJson(rows, sessions)]]);
  const files = psychDsFiles(
    STUDIES.slice(0, 2).map((definition) => ({
      definition,
      csv: rowsToCsv(
        rows.filter((r) => r.study_id === definition.studyId),
        sessions,
      ),
    })),
    NOW,
  );
  pin('page psych-ds', [...files]);

  const dir = tempDir();
  const store = ResultStore.open(path.join(dir, 'results.sqlite'));
  for (const def of STUDIES.slice(0, 2)) store.registerStudy({ token: encodeStudyLink(def) });
  for (const study of ['golden-solve', 'golden-crossed']) {
    const body = {
      sessions: sessions.filter((s) => s.study_id === study),
      rows: rows.filter((r) => r.study_id === study),
    };
    expect(store.ingest(body, '2026-11-28T12:00:00.000Z').status).toBe('stored');
  }
  const reader = ExportReader.open(store);
  for (const format of ['csv', 'json'] as const) {
    pin(`server ${format}`, [[`server.${format}`, [...reader.chunks(format, undefined)].join('')]]);
    pin(`server ${format} golden-crossed`, [[`one.${format}`, [...reader.chunks(format, 'golden-crossed')].join('')]]);
  }
  reader.close();
  const folder = path.join(dir, 'psych-ds');
  writePsychDs(store, folder, { force: false, now: NOW });
  const written = (sub: string): string[] =>
    readdirSync(path.join(folder, sub), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? written(path.join(sub, e.name)) : [path.join(sub, e.name)],
    );
  pin(
    'server psych-ds',
    written('')
      .sort()
      .map((f) => [f, readFileSync(path.join(folder, f), 'utf8')] as const),
  );
  store.close();
  return { full: out, before };
}

/** Digests (sha-256, first 16 hex digits) taken before the study wing moved into its rooms; the exports' since issue 32. */
const EXPECTED: Record<string, string> = {
  'link golden-crossed': 'ec4f245c73ece36c',
  'link golden-paraphrase': '47204b328a5c86bc',
  'link golden-review': '56331d9a6740ba83',
  'link golden-solve': 'c8ce4d311e2ef640',
  'page csv': '8485129a301eec43',
  'page json': '621d5254d9d9accc',
  // psych-DS: the materials' definition JSON lists the adaptive kind's four settings at their defaults (issue 32).
  // The exports (page and server CSV, JSON, psych-DS) gain the five estimate columns (issue 32): without them
  // they are the files pinned before (BEFORE_LATER_COLUMNS, checked below).
  'page psych-ds': '1c74dcf3a52f6c20',
  'schedule golden-crossed': '029f12f8b58f081e',
  'schedule golden-solve': 'e329ac311c8bcf74',
  'server csv': 'e015058e544bbc5a',
  'server csv golden-crossed': '5966ab99314d583e',
  'server json': '8176811fa4ba111d',
  'server json golden-crossed': '48de365e118a973d',
  'server psych-ds': 'b3c308ba0293b65d',
};

/** The export digests pinned before the estimate columns (issue 32), taken of the files without them. */
const BEFORE_LATER_COLUMNS: Record<string, string> = {
  'page csv': '0b47ffec0eb67475',
  'page json': 'e046e261038fd1c9',
  'page psych-ds': 'b936214a15392ecc',
  'server csv': 'efc464a78820071e',
  'server csv golden-crossed': '6e1cb80ecb469836',
  'server json': 'b00168167173ad94',
  'server json golden-crossed': '16ea6c9c57da64d9',
  'server psych-ds': '56c2ad2d62dcb2f5',
};

describe('the files users keep', () => {
  const { full, before } = parts();

  it('are byte-identical to the ones pinned here', () => {
    expect(full).toEqual(EXPECTED);
  });

  it('differ from the ones pinned before the estimate columns only by those columns', () => {
    const exported = Object.keys(BEFORE_LATER_COLUMNS);
    expect(Object.fromEntries(exported.map((k) => [k, before[k]]))).toEqual(BEFORE_LATER_COLUMNS);
  });
});
