import { useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { jatosAborter } from '../../study/delivery/jatosRuntime';
import { consentDestinations } from '../../study/definition/sinks';
import type { StudyRun } from '../../study/run/run';
import type { RunEnv } from './boot';
import { REDIRECT_DELAY_MS } from './Completion';
import { Heading } from './Heading';
import { Markdown } from './Markdown';

/**
 * The consent screen: the researcher's text (whose default says what is recorded), then what the
 * page itself knows to be true — where the answers go, one item per destination of the run's
 * effective sinks — before the participant agrees or declines.
 */
export function ConsentScreen({ run, env, onError }: { run: StudyRun; env: RunEnv; onError: (e: unknown) => void }) {
  const destinations = consentDestinations(env.def.sinks, env.pageUrl);
  return (
    <section className="study-screen" aria-labelledby="consent-heading">
      <Heading id="consent-heading">Before you start</Heading>
      <Markdown text={env.def.consentText} />
      <div className="study-facts">
        <h2>Where your answers go</h2>
        <ul data-testid="consent-destinations">
          {destinations.map((d) => (
            <li key={`${d.kind}:${d.text}`} data-kind={d.kind}>
              {d.text}
            </li>
          ))}
        </ul>
      </div>
      <div className="study-consent-actions">
        <button
          type="button"
          className="button button--primary"
          data-testid="consent-accept"
          onClick={() => void run.acceptConsent().catch(onError)}
        >
          I agree to take part
        </button>
        <button
          type="button"
          className="button"
          data-testid="consent-decline"
          onClick={() => void run.decline().catch(onError)}
        >
          I do not agree
        </button>
      </div>
      {run.takesResumeCode && (
        <details className="study-resume-fold" data-testid="resume-fold">
          <summary>Continuing from another device?</summary>
          <p>
            If you started this study on another device, enter the resume code shown there to carry on where you left
            off. Continuing means you agree to take part, as above.
          </p>
          <ResumeCodeForm
            submitLabel="I agree: continue my session"
            onSubmit={(code) => void run.acceptConsent(code).catch(onError)}
          />
        </details>
      )}
    </section>
  );
}

/**
 * The resume code's field and button (on the consent's disclosure and the resume screen): sent on
 * the button or Enter; the run reads the code (case, spaces and hyphens do not matter).
 */
function ResumeCodeForm({ submitLabel, onSubmit }: { submitLabel: string; onSubmit: (code: string) => void }) {
  const id = useId();
  const [code, setCode] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit(code);
  };
  return (
    <form className="study-resume-form" onSubmit={submit}>
      <label htmlFor={`${id}-code`}>Resume code</label>
      <input
        id={`${id}-code`}
        data-testid="resume-code-input"
        value={code}
        onChange={(e) => setCode(e.target.value)}
        placeholder="XXXX-XXXX"
        autoComplete="off"
        autoCapitalize="characters"
        spellCheck={false}
        maxLength={40}
      />
      <button type="submit" className="button button--primary" data-testid="resume-code-submit">
        {submitLabel}
      </button>
    </form>
  );
}

/**
 * Continuing a session begun on another device: the server asked for its resume code (or the
 * code typed was not one). The problem, the field again, and the way back to the consent (to
 * start without a code). Nothing has been recorded here.
 */
export function ResumeScreen({
  run,
  problem,
  onError,
}: {
  run: StudyRun;
  problem: string | null;
  onError: (e: unknown) => void;
}) {
  return (
    <section className="study-screen" data-testid="resume" aria-labelledby="resume-heading">
      <Heading id="resume-heading">Continue your session</Heading>
      {problem !== null && (
        <p className="study-alert" role="alert" data-testid="resume-problem">
          {problem}
        </p>
      )}
      <p>
        To continue a session you started on another device, enter the resume code shown there (on its instructions and
        break screens).
      </p>
      <ResumeCodeForm submitLabel="Continue" onSubmit={(code) => void run.resume(code).catch(onError)} />
      <p className="study-note">Nothing has been recorded on this device yet.</p>
      <button type="button" className="button" data-testid="resume-back" onClick={() => run.leaveResume()}>
        Back
      </button>
    </section>
  );
}

/**
 * After a decline: nothing was recorded or sent. With Prolific the participant returns the study
 * there (Prolific's "Cancel participation"); there is no completion code to give. Inside JATOS the
 * run is aborted (`jatos.abortStudy`: JATOS keeps no data of it and shows its end page) after the
 * same short pause as a redirect, so the page can be read; there is no way back to the consent.
 */
export function DeclinedScreen({ run, env }: { run: StudyRun; env: RunEnv }) {
  const jatos = env.jatos;
  const abort = useMemo(() => (jatos ? jatosAborter(jatos) : null), [jatos]);
  useEffect(() => {
    if (!abort) return;
    const id = setTimeout(abort, REDIRECT_DELAY_MS);
    return () => clearTimeout(id);
  }, [abort]);
  return (
    <section className="study-screen" data-testid="declined" aria-labelledby="declined-heading">
      <Heading id="declined-heading">You chose not to take part</Heading>
      <p>Nothing you did on this page was recorded, and nothing was sent anywhere. You can close this page.</p>
      {env.prolific && (
        <p data-testid="declined-prolific">
          To leave this study on Prolific, <strong>return it</strong>: go back to the Prolific page of the study and
          click <strong>“Cancel participation”</strong> (Prolific calls this returning a study). There is no completion
          code for this study, and returning it does not count against you on Prolific.
        </p>
      )}
      {abort ? (
        <p data-testid="declined-jatos" role="status">
          Ending the study for you in a moment…{' '}
          <button type="button" className="button" onClick={() => abort()}>
            Leave now
          </button>
        </p>
      ) : (
        <button
          type="button"
          className="button"
          data-testid="declined-reconsider"
          onClick={() => {
            run.forgetDecline();
            window.location.reload();
          }}
        >
          I changed my mind: show the consent again
        </button>
      )}
    </section>
  );
}
