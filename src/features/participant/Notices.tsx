import { useSyncExternalStore } from 'react';
import type { StudyRun } from '../../study/run/run';
import { sinkName } from '../../study/definition/sinks';
import type { StudyKind } from '../../study/definition/vocabulary';
import { itemWord } from './limits';

/**
 * The resume code of an issued session, with how to use it: on the instructions and on breaks, so
 * a participant can move to another device. Nothing for other sessions (previews, browser-made).
 */
export function ResumeCodeNote({ run }: { run: StudyRun }) {
  const code = run.resumeCode;
  if (code === null) return null;
  return (
    <p className="study-resume" data-testid="resume-code-note">
      Your resume code:{' '}
      <strong className="study-resume__code" data-testid="resume-code">
        {code}
      </strong>
      . To continue on another device, open the same link there and enter this code.
    </p>
  );
}

/** "The study server", "JATOS", "The results address <host>": what refused, as the start of a sentence. */
function refuserName(sink: string, pageUrl: string): string {
  if (sink === 'server') return 'The study server';
  const name = sinkName(sink, pageUrl);
  return sink.startsWith('http:') ? `The results address ${name}` : name;
}

/**
 * Told at once, on every screen of the run but the completion (which has its own account): a
 * destination refused an answer for good, so the participant knows it now, not only at the end,
 * and what to do. Redrawn when the outbox reports a change (the run's `refusal`).
 */
export function RefusalNotice({ run, pageUrl }: { run: StudyRun; pageUrl: string }) {
  const refusal = useSyncExternalStore(
    (l) => run.subscribe(l),
    () => run.refusal,
  );
  if (refusal === null) return null;
  const what = refusal.count === 1 ? 'one of your answers' : `${refusal.count} of your answers`;
  return (
    <div className="study-alert" role="alert" data-testid="refusal-notice">
      <p>
        <strong>
          {refuserName(refusal.sink, pageUrl)} did not accept {what}.
        </strong>{' '}
        {refusal.count === 1 ? 'It is' : 'They are'} still kept in this browser. Please keep going; at the end, download
        your answers (a button on the last page) and tell the researcher about this message.
      </p>
      {refusal.said && <p className="study-alert__said">The server said: “{refusal.said.replace(/\.$/, '')}”.</p>}
    </div>
  );
}

/** After a main or check trial that ran out of time: said on the next screen, without a click. */
export function TimeUpNotice({ kind }: { kind: StudyKind }) {
  return (
    <p className="study-time-up" role="status" data-testid="time-up">
      Time is up for the last {itemWord(kind)}: it was recorded without an answer.
    </p>
  );
}
