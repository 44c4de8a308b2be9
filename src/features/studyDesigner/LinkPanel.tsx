import { useStudyDesigner } from './store';
import { useRef, useState } from 'react';
import type { StudyDefinition, StudyProblem } from '../../study/definition/definition';
import { JzipError } from '../../study/delivery/jzip';
import { participantPath } from '../../study/delivery/route';
import { shortParticipantPath } from '../../study/delivery/route';
import { linkLengthProblem } from '../../study/delivery/route';
import { saveFile } from '../../ui/saveFile';
import { ArchiveError, DEV_SERVER_MESSAGE, makeJzip } from './archive';
import { inputForProblem, type StudyForm } from './form';
import { RegisterWithServer } from './RegisterWithServer';

/**
 * Where the participant link is: the link and its outputs (preview, JATOS archive, definition
 * file, registering with the results server), or, while the study has problems, the problems
 * instead, and first among them that no destination is chosen.
 */
export function LinkPanel(props: {
  def: StudyDefinition;
  token: string | null;
  problems: readonly StudyProblem[];
  form: StudyForm;
}) {
  return (
    <section className="sd-panel">
      {props.token ? (
        <Outputs def={props.def} token={props.token} />
      ) : (
        <NoLink def={props.def} problems={props.problems} form={props.form} />
      )}
    </section>
  );
}

function NoLink({ def, problems, form }: { def: StudyDefinition; problems: readonly StudyProblem[]; form: StudyForm }) {
  return (
    <>
      <h2 id="sd-outputs">Participant link</h2>
      {def.sinks.length === 0 && (
        <p className="sd-notice" data-testid="study-no-destination">
          <strong>Choose where results go</strong> (under “Where results go”): until then there is no participant link,
          no JATOS archive, no registration and no command line, so that no study runs with its results going nowhere.
        </p>
      )}
      <div className="sd-alert" role="alert" data-testid="study-problems">
        <p>
          <strong>
            No link while the study has {problems.length} problem{problems.length === 1 ? '' : 's'}:
          </strong>
        </p>
        <ul>
          {problems.map((p, i) => (
            <li key={i}>
              <button
                type="button"
                className="sd-goto"
                onClick={() => {
                  const input = inputForProblem(p.field, form);
                  // A problem of the whole list (no destination) goes to its first box.
                  const name = input === 'sinks' ? 'server' : input;
                  document.querySelector<HTMLElement>(`[name="${CSS.escape(name)}"]`)?.focus();
                }}
              >
                {p.message}
              </button>
            </li>
          ))}
        </ul>
      </div>
    </>
  );
}

type Busy = { readonly state: 'idle' } | { readonly state: 'busy' } | { readonly state: 'error'; message: string };

function Outputs({ def, token }: { def: StudyDefinition; token: string }) {
  const base = `${window.location.origin}${window.location.pathname}`;
  const link = `${base}${participantPath(token)}`;
  const preview = `${base}${participantPath(token, { preview: '1' })}`;
  const [copied, setCopied] = useState(false);
  const [archive, setArchive] = useState<Busy>({ state: 'idle' });
  const linkRef = useRef<HTMLElement>(null);
  const dev = import.meta.env.DEV;
  // The request line a participant's browser sends (path and query), as `study link` measures it:
  // a link too long for common proxies is not shown at all.
  const tooLong = linkLengthProblem(`${window.location.pathname}${participantPath(token)}`);
  const server = def.sinks.some((s) => s.kind === 'server');

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      // No clipboard permission: select the link so Ctrl+C copies it.
      const range = document.createRange();
      if (linkRef.current) range.selectNodeContents(linkRef.current);
      window.getSelection()?.removeAllRanges();
      window.getSelection()?.addRange(range);
    }
  };

  const downloadJzip = async () => {
    setArchive({ state: 'busy' });
    try {
      const bytes = await makeJzip(def, token);
      saveFile([bytes as BlobPart], `${def.studyId}.jzip`, 'application/zip');
      setArchive({ state: 'idle' });
    } catch (e) {
      const message =
        e instanceof ArchiveError || e instanceof JzipError
          ? e.message
          : `The archive could not be made: ${(e as Error).message}`;
      setArchive({ state: 'error', message });
    }
  };

  return (
    <>
      <h2 id="sd-outputs">Participant link</h2>
      {tooLong ? (
        <div className="sd-alert" role="alert" data-testid="study-link-too-long">
          <p>
            <strong>No participant link:</strong> {tooLong}.
          </p>
          {server && (
            <p>
              Registered with the results server that serves this page (below), the study opens with the short link{' '}
              <code>
                {base}
                {shortParticipantPath(def.studyId)}
              </code>
              .
            </p>
          )}
        </div>
      ) : (
        <>
          <p className="sd-link">
            <code ref={linkRef} data-testid="study-link">
              {link}
            </code>
          </p>
          <p className="hint">
            {link.length} characters. Prolific adds PROLIFIC_PID, STUDY_ID and SESSION_ID to it; add{' '}
            <code>&amp;condition=&lt;id&gt;</code> to force a condition.
          </p>
          <RecruitmentNote />
        </>
      )}
      <div className="sd-actions">
        {!tooLong && (
          <>
            <button type="button" data-testid="study-link-copy" onClick={copy}>
              {copied ? 'Copied' : 'Copy link'}
            </button>
            <a className="sd-button" data-testid="study-preview" href={preview} target="_blank" rel="noopener">
              Preview (records nothing)
            </a>
          </>
        )}
        <button
          type="button"
          data-testid="study-jzip"
          disabled={dev || archive.state === 'busy'}
          aria-describedby="sd-jzip-hint"
          onClick={downloadJzip}
        >
          {archive.state === 'busy' ? 'Packing…' : 'JATOS archive (.jzip)'}
        </button>
        <button
          type="button"
          data-testid="study-json"
          onClick={() =>
            saveFile([`${JSON.stringify(def, null, 2)}\n`], `${def.studyId}.study.json`, 'application/json')
          }
        >
          Definition (.json)
        </button>
      </div>
      <p id="sd-jzip-hint" className="hint" data-testid="study-jzip-hint">
        {dev
          ? DEV_SERVER_MESSAGE
          : 'The .jzip holds this app and this study: import it in JATOS (Import study); participants then open a JATOS study link (for Prolific, a General Single link), not the link above.'}
      </p>
      {archive.state === 'error' && (
        <p className="sd-error" role="alert" data-testid="study-jzip-error">
          {archive.message}
        </p>
      )}
      {server && <RegisterWithServer token={token} />}
    </>
  );
}

/** For the Prolific study's places (or JATOS's batch size): the planned N and how it was chosen. */
function RecruitmentNote() {
  const planned = useStudyDesigner((s) => s.plannedN);
  if (!planned) return null;
  return (
    <p className="hint" data-testid="study-recruitment">
      For Prolific (places) or a JATOS batch (maximum participants): recruit <strong>{planned.participants}</strong>.
      How this was chosen: {planned.how}
    </p>
  );
}
