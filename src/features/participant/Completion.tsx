import { saveFile } from '../../ui/saveFile';
import { useEffect, useReducer, useRef, useState } from 'react';
import type { ResultRow, SessionInfo } from '../../study/results/results';
import { rowsToCsv, rowsToJson } from '../../study/results/results';
import { jatosEnder } from '../../study/delivery/jatosRuntime';
import type { StudyRun } from '../../study/run/run';
import { kindSpec } from '../../study/kinds';
import { adaptiveStateOf } from '../../study/kinds/adaptive';
import type { StudyDefinition } from '../../study/definition/definition';
import { downloadInstructions, sinkName } from '../../study/definition/sinks';
import type { Outbox } from '../../study/delivery/outbox';
import type { RunEnv } from './boot';
import { Markdown } from './Markdown';
import { TimeUpNotice } from './Notices';
import { Progress } from './Progress';

/** How long the completion screen (and its code) stays before the redirect, once every row is sent. */
export const REDIRECT_DELAY_MS = 3000;

const SINK_TEXT = {
  sending: 'Sending your answers…',
  sent: 'All your answers were sent.',
  failed:
    'Your answers could not be sent yet; the page keeps trying while it is open. Please download them below and keep the file.',
} as const;

/**
 * What `sink-status` says when not every sink has every row: which destination refused (and
 * what it said), or that a copy is still on its way; and that the answers can be downloaded.
 */
function sinkDetail(outbox: Outbox, primary: string | null, pageUrl: string): string {
  const reports = outbox.sinkReports();
  const parts: string[] = [];
  if (primary !== null && outbox.hasAll(primary))
    parts.push(`Your answers were sent to ${sinkName(primary, pageUrl)}.`);
  for (const r of reports) {
    if (r.refused > 0) {
      const what = r.refused === 1 ? 'one of your answers' : `${r.refused} of your answers`;
      const said = r.refusal ? ` (it said: “${r.refusal.replace(/\.$/, '')}”)` : '';
      parts.push(`${sinkName(r.id, pageUrl)} refused ${what}${said}, so they were not sent there.`);
    }
  }
  for (const r of reports) {
    if (r.waiting > 0 && r.id !== primary) {
      parts.push(`A copy is still being sent to ${sinkName(r.id, pageUrl)} while this page is open.`);
    }
  }
  parts.push(
    primary !== null && outbox.hasAll(primary)
      ? 'You can download your answers below.'
      : 'Please download your answers below and keep the file.',
  );
  return parts.join(' ');
}
/**
 * The end: completion text and code, the session's rows to download (always), where the sinks
 * stand, and the redirect (or JATOS's end) once every row is acknowledged. When no sink sends the
 * rows (download-only), the file is the researcher's only copy: the screen says so and how to send
 * it, and the completion code (and the redirect) wait until a download was clicked.
 */
export function Completion({
  run,
  env,
  rows,
  session,
  timedOut,
  timeUp = false,
  downloaded,
}: {
  run: StudyRun;
  env: RunEnv;
  rows: readonly ResultRow[];
  session: SessionInfo;
  timedOut: boolean;
  /** The last trial ran out of its own time (the overall limit says so itself). */
  timeUp?: boolean;
  downloaded: boolean;
}) {
  const { def } = env;
  const [since] = useState(() => Date.now());
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  const ended = useRef<((url: string) => boolean) | null>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    headingRef.current?.focus();
    window.addEventListener('study:outbox', redraw);
    // Redraws once a second so a sink that stays down turns "sending" into "could not send".
    const id = setInterval(redraw, 1000);
    return () => {
      window.removeEventListener('study:outbox', redraw);
      clearInterval(id);
    };
  }, []);

  const sink = run.sinkState(since);
  const downloadOnly = run.downloadOnly;
  // Download-only: nothing to acknowledge, but the participant must have the file before leaving.
  // Otherwise the study's primary destination must have every row; other sinks (a second HTTP
  // address that never answers, one that refused) do not hold the participant here.
  const acknowledged = downloadOnly ? downloaded : run.primaryHasAll();
  const redirecting = acknowledged && !env.preview && !env.jatos && def.redirectUrl !== '';

  useEffect(() => {
    if (!acknowledged || env.preview) return;
    if (env.jatos) {
      ended.current ??= jatosEnder(env.jatos);
      ended.current(def.redirectUrl);
      return;
    }
    if (def.redirectUrl === '') return;
    const id = setTimeout(() => window.location.assign(def.redirectUrl), REDIRECT_DELAY_MS);
    return () => clearTimeout(id);
  }, [acknowledged, env, def.redirectUrl]);

  const [done, total] = run.progress();
  const base = `${def.studyId}-${session.session_id}`;
  const showCode = !downloadOnly || downloaded;
  const save = (parts: BlobPart[], name: string, type: string) => {
    saveFile(parts, name, type);
    void run.markDownloaded();
  };
  return (
    <section className="study-screen" data-testid="completion" aria-labelledby="completion-heading">
      <h1 id="completion-heading" tabIndex={-1} ref={headingRef}>
        Thank you
      </h1>
      {/* An adaptive run that stopped early is complete at the trials it asked. */}
      <Progress done={done} total={kindSpec(def.kind).follows ? done : total} />
      {timeUp && !timedOut && <TimeUpNotice kind={def.kind} />}
      {timedOut && (
        <p className="study-note">
          The time for the {kindSpec(def.kind).words[1]} ran out; your answers so far are recorded.
        </p>
      )}
      <Markdown text={def.completionText} />
      {def.showEstimate && kindSpec(def.kind).follows && <AdaptiveEstimate def={def} rows={rows} />}
      {downloadOnly && (
        <div className="study-download-notice" data-testid="download-only-notice" role="note">
          <p>
            <strong>Your answers have not been sent anywhere.</strong> This study collects them only as a file: download
            it below and send it to the researcher. Without the file your answers are lost.
          </p>
          {/* A study without any sink has no instructions of its own (only a default that says the above again). */}
          {def.sinks.some((s) => s.kind === 'download') && (
            <>
              <p className="study-download-notice__how">How to send the file:</p>
              <Markdown text={downloadInstructions(def.sinks)} />
            </>
          )}
        </div>
      )}
      {def.completionCode !== '' &&
        (showCode ? (
          <p className="study-code">
            Your completion code: <strong data-testid="completion-code">{def.completionCode}</strong>
          </p>
        ) : (
          <p className="study-code study-code--pending" data-testid="completion-code-pending">
            Your completion code appears here once you have downloaded the file.
          </p>
        ))}
      {sink !== 'none' && (
        <p className={`study-sink study-sink--${sink}`} data-testid="sink-status" data-state={sink} role="status">
          {sink === 'refused' || sink === 'partly-sent'
            ? sinkDetail(env.outbox, run.primarySink, env.pageUrl)
            : SINK_TEXT[sink]}
          {sink === 'sending' && ` (${env.outbox.pendingCount()} left)`}
        </p>
      )}
      {env.preview && def.redirectUrl !== '' && (
        <p className="study-note">Preview: a participant would now be taken to {def.redirectUrl}.</p>
      )}
      {redirecting && (
        <p className="study-note" role="status">
          Taking you back in a moment… <a href={def.redirectUrl}>Go now</a>
        </p>
      )}
      <div className="study-downloads">
        <p>
          {downloadOnly
            ? 'Download your answers (either file will do):'
            : 'A copy of your answers for your own records:'}
        </p>
        <button
          type="button"
          className="button"
          data-testid="download-results"
          onClick={() => save([rowsToCsv(rows, [session])], `${base}.csv`, 'text/csv;charset=utf-8')}
        >
          Download answers (CSV)
        </button>
        <button
          type="button"
          className="button"
          data-testid="download-results-json"
          onClick={() => save([rowsToJson(rows, [session])], `${base}.json`, 'application/json')}
        >
          Download answers (JSON)
        </button>
      </div>
    </section>
  );
}

/**
 * An adaptive study's estimate for this participant, when the researcher lets them see it: the
 * threshold k (the longest story they answer mostly right) with its 95% interval.
 */
function AdaptiveEstimate({ def, rows }: { def: StudyDefinition; rows: readonly ResultRow[] }) {
  const { estimate } = adaptiveStateOf(def, rows);
  if (estimate.trials === 0) return null;
  const f = (x: number) => x.toFixed(1);
  return (
    <div className="study-estimate" data-testid="adaptive-estimate" role="note">
      <p>
        Your estimated reasoning depth: <strong data-testid="adaptive-threshold">k ≈ {f(estimate.threshold)}</strong>{' '}
        (95% interval {f(estimate.low)} to {f(estimate.high)}, from {estimate.trials} puzzles).
      </p>
      <p className="study-estimate__what">
        That is the longest story, in steps between the two people asked about, whose puzzles you answered mostly right.
      </p>
    </div>
  );
}
