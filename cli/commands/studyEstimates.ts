/**
 * `study estimates <definition or link> FILE…`: each session's threshold estimate (threshold k and
 * its 95% interval) from a study's exported rows, as the participant's completion screen shows it:
 * an adaptive study's procedure replayed over the session's answers (src/study/kinds/adaptive.ts),
 * a fixed-item study's fitted from its accuracy by k. An adaptive study's rows store the estimate
 * after each main trial (threshold_k, threshold_low, threshold_high: the results server's own,
 * recomputed from the answers); a session's stored estimate is read from its last such row, and
 * the answers are replayed only for rows without it (files written before the columns). A stored
 * estimate that the replay does not reproduce (an edited file, another definition) is said on
 * stderr. Last line: `participants=<n> mean_threshold=<x|none>`.
 */
import { writeFileSync } from 'node:fs';
import type { ResultRow } from '../../src/study/results/results';
import type { ThresholdEstimate } from '../../src/study/adaptive/psychometric';
import { storedThresholds } from '../../src/study/results/thresholds';
import { estimatesCsv, sessionEstimate, SIMULATED_KINDS } from '../../src/study/simulate/simulate';
import { type FlagSpec, helpText, parseArgs } from '../args';
import { UsageError } from '../errors';
import { readResultsFile } from '../readText';
import { readStudySource } from './studySimulate';

const FLAGS: Record<string, FlagSpec> = {
  out: { type: 'string', help: 'write the estimates CSV here; without it, on stdout' },
};

const HELP = helpText(
  'study estimates',
  `study estimates <definition.json | link | token> FILE... [--out FILE]

Each session's threshold estimate from the study's result files (CSV or JSON exports): columns
session_id, threshold, low, high, trials. Rows of other studies in the files are left out.
Last line: participants=<n> mean_threshold=<x|none>.`,
  FLAGS,
);

export async function studyEstimates(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HELP);
    return 0;
  }
  const { flags, positional } = parseArgs('study estimates', [...argv], FLAGS);
  if (positional.length < 2)
    throw new UsageError('name the study (definition file or link) and at least one result file');
  const def = readStudySource(positional[0]!);
  if (!(SIMULATED_KINDS as readonly string[]).includes(def.kind)) {
    throw new UsageError(`a ${def.kind} study has no thresholds: its participants write or judge stories`);
  }
  const bySession = new Map<string, ResultRow[]>();
  for (const file of positional.slice(1)) {
    for (const row of (await readResultsFile(file)).rows) {
      if (row.study_id !== def.studyId) continue;
      const rows = bySession.get(row.session_id) ?? [];
      rows.push(row);
      bySession.set(row.session_id, rows);
    }
  }
  if (bySession.size === 0) {
    throw new UsageError(`no rows of study ${def.studyId} in ${positional.slice(1).join(', ')}`);
  }
  let stored = 0;
  const differ: string[] = [];
  const sessions = [...bySession].map(([sessionId, rows]) => {
    const recomputed = sessionEstimate(def, rows);
    const kept = storedThresholds(rows)[0];
    if (!kept) return { sessionId, estimate: recomputed };
    stored++;
    const estimate: ThresholdEstimate = {
      threshold: kept.threshold,
      low: kept.low,
      high: kept.high,
      trials: kept.trials,
    };
    if (estimatesCsv([{ sessionId, estimate }]) !== estimatesCsv([{ sessionId, estimate: recomputed }]))
      differ.push(sessionId);
    return { sessionId, estimate };
  });
  process.stderr.write(
    `estimates: ${stored} stored in the rows, ${sessions.length - stored} recomputed from the answers\n`,
  );
  if (differ.length > 0) {
    process.stderr.write(
      `warning: the stored estimate of ${differ.length} session(s) is not what this study's procedure gives from their answers (${differ.slice(0, 5).join(', ')}${differ.length > 5 ? ', …' : ''}); the stored one is written\n`,
    );
  }
  const csv = estimatesCsv(sessions);
  if (flags.out === undefined) process.stdout.write(csv);
  else writeFileSync(String(flags.out), csv);
  const thresholds = sessions.flatMap((s) => (s.estimate ? [s.estimate.threshold] : []));
  const mean =
    thresholds.length === 0 ? 'none' : (thresholds.reduce((a, b) => a + b, 0) / thresholds.length).toFixed(3);
  process.stdout.write(`participants=${sessions.length} mean_threshold=${mean}\n`);
  return 0;
}
