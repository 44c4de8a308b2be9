import { useEffect, useMemo } from 'react';
import { jatosAborter } from '../../study/jatosRuntime';
import { consentDestinations } from '../../study/sinks';
import type { StudyRun } from '../../study/run';
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
