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
import { psychDsFiles } from '../src/study/results/psychDs';
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

function parts(): Record<string, string> {
  const out: Record<string, string> = {};
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
  out['page csv'] = digest(rowsToCsv(rows, sessions));
  out['page json'] = digest(rowsToJson(rows, sessions));
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
  out['page psych-ds'] = digest([...files].map(([name, text]) => `${name}\n${text}`).join('\u0000'));

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
    out[`server ${format}`] = digest([...reader.chunks(format, undefined)].join(''));
    out[`server ${format} golden-crossed`] = digest([...reader.chunks(format, 'golden-crossed')].join(''));
  }
  reader.close();
  const folder = path.join(dir, 'psych-ds');
  writePsychDs(store, folder, { force: false, now: NOW });
  const written = (sub: string): string[] =>
    readdirSync(path.join(folder, sub), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? written(path.join(sub, e.name)) : [path.join(sub, e.name)],
    );
  out['server psych-ds'] = digest(
    written('')
      .sort()
      .map((f) => `${f}\n${readFileSync(path.join(folder, f), 'utf8')}`)
      .join('\u0000'),
  );
  store.close();
  return out;
}

/** Digests (sha-256, first 16 hex digits) taken before the study wing moved into its rooms. */
const EXPECTED: Record<string, string> = {
  'link golden-crossed': 'ec4f245c73ece36c',
  'link golden-paraphrase': '47204b328a5c86bc',
  'link golden-review': '56331d9a6740ba83',
  'link golden-solve': 'c8ce4d311e2ef640',
  'page csv': '0b47ffec0eb67475',
  'page json': 'e046e261038fd1c9',
  // psych-DS: the materials' definition JSON lists the adaptive kind's four settings at their defaults (issue 32).
  'page psych-ds': 'b936214a15392ecc',
  'schedule golden-crossed': '029f12f8b58f081e',
  'schedule golden-solve': 'e329ac311c8bcf74',
  'server csv': 'efc464a78820071e',
  'server csv golden-crossed': '6e1cb80ecb469836',
  'server json': 'b00168167173ad94',
  'server json golden-crossed': '16ea6c9c57da64d9',
  'server psych-ds': '56c2ad2d62dcb2f5',
};

describe('the files users keep', () => {
  it('are byte-identical to the ones pinned here', () => {
    expect(parts()).toEqual(EXPECTED);
  });
});
