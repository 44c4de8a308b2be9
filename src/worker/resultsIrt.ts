import type { ParticipantRow } from '../study/results/figures';
import { IrtError } from '../study/results/irt';
import { irtReport, placeRespondent, type IrtReport, type PlacedRespondent } from '../study/results/irtRows';
import type { ResultRow } from '../study/results/results';
import type { IrtBody, IrtResult } from './resultsProtocol';

/** What the IRT command reads: the reader's last merge (`createResultsReader().merged`). */
export type MergedRows = () => {
  readonly key: string;
  readonly rows: readonly ResultRow[];
  readonly people: readonly ParticipantRow[];
} | null;

/**
 * The results worker's `irt` command: fits the merge's solve rows (flagged participants left out
 * when asked), keeps the last fit, and places the respondents (the models) on its scale. A fit
 * that cannot be made is an answer with its reason, not an error: the panel shows the sentence.
 */
export function createIrtCommand(merged: MergedRows) {
  let last: { id: string; report: IrtReport | { message: string } } | null = null;
  return function irt(body: IrtBody): IrtResult {
    const m = merged();
    if (!m || m.key !== body.key) {
      return { ok: false, key: body.key, stale: true, message: 'the results changed; fitting again' };
    }
    const id = `${m.key}|${body.model}|${body.excludeFlagged}`;
    if (last?.id !== id) {
      const flagged = body.excludeFlagged
        ? new Set(m.people.flatMap((p) => (p.flags.length ? [p.session_id] : [])))
        : null;
      const rows = flagged ? m.rows.filter((r) => !flagged.has(r.session_id)) : m.rows;
      try {
        last = { id, report: irtReport(rows, body.model) };
      } catch (e) {
        if (!(e instanceof IrtError)) throw e;
        last = { id, report: { message: e.message } };
      }
    }
    const report = last.report;
    if ('message' in report) return { ok: false, key: body.key, stale: false, message: report.message };
    const placed = body.respondents.flatMap((r): PlacedRespondent[] => {
      const p = placeRespondent(report, r.id, r.label, new Map(r.answers));
      return p ? [p] : [];
    });
    return { ok: true, key: body.key, report, placed };
  };
}
