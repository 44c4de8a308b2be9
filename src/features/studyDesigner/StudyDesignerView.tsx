import { saveFile } from '../../ui/saveFile';
import { createContext, type ReactNode, useContext, useId, useMemo, useRef, useState } from 'react';
import {
  ASSIGNMENTS,
  DISPLAYS,
  RESUME_POLICIES,
  STUDY_LIMITS,
  type StudyDefinition,
  TEMPLATE_SPLITS,
} from '../../study/definition';
import { JzipError } from '../../study/jzip';
import { encodeStudyLink } from '../../study/link';
import { participantPath } from '../../study/route';
import { ArchiveError, DEV_SERVER_MESSAGE, makeJzip } from './archive';
import { registerWithServer, type RegisterReply } from './register';
import {
  cliCommand,
  definitionFromForm,
  formFromFile,
  inputForProblem,
  problemsByInput,
  type StudyForm,
  studySummary,
} from './form';
import { useStudyDesigner } from './store';
import './studyDesigner.css';

/** The problems of the current form, by input key (see form.ts inputForProblem). */
const Problems = createContext<ReadonlyMap<string, string[]>>(new Map());

interface A11y {
  id: string;
  name: string;
  'aria-invalid': boolean;
  'aria-describedby': string | undefined;
}

/** A labelled input with its hint and, when checkStudyDefinition objects, the problem under it. */
function Field(props: {
  input: string;
  label: string;
  hint?: string;
  wide?: boolean;
  children: (a: A11y) => ReactNode;
}) {
  const id = useId();
  const problems = useContext(Problems).get(props.input);
  const hintId = props.hint ? `${id}-hint` : undefined;
  const errorId = problems ? `${id}-error` : undefined;
  return (
    <div className={props.wide ? 'sd-field sd-wide' : 'sd-field'} data-field={props.input}>
      <label htmlFor={id}>{props.label}</label>
      {props.children({
        id,
        name: props.input,
        'aria-invalid': Boolean(problems),
        'aria-describedby': [hintId, errorId].filter(Boolean).join(' ') || undefined,
      })}
      {props.hint && (
        <span id={hintId} className="sd-hint">
          {props.hint}
        </span>
      )}
      {problems && (
        <span id={errorId} className="sd-error" data-testid="study-field-error" data-field={props.input}>
          {problems.join(' ')}
        </span>
      )}
    </div>
  );
}

type TextField = {
  [F in keyof StudyForm]: StudyForm[F] extends string ? F : never;
}[keyof StudyForm];

function TextInput(props: { field: TextField; label: string; hint?: string; numeric?: boolean }) {
  const value = useStudyDesigner((s) => s.form[props.field]);
  const setField = useStudyDesigner((s) => s.setField);
  return (
    <Field input={props.field} label={props.label} hint={props.hint}>
      {(a) => (
        <input
          {...a}
          type="text"
          inputMode={props.numeric ? 'numeric' : 'text'}
          autoComplete="off"
          spellCheck={false}
          value={value}
          onChange={(e) => setField(props.field, e.target.value)}
        />
      )}
    </Field>
  );
}

function Choice(props: { field: TextField; label: string; hint?: string; choices: readonly string[] }) {
  const value = useStudyDesigner((s) => s.form[props.field]);
  const setField = useStudyDesigner((s) => s.setField);
  return (
    <Field input={props.field} label={props.label} hint={props.hint}>
      {(a) => (
        <select {...a} value={value} onChange={(e) => setField(props.field, e.target.value)}>
          {props.choices.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

function Markdown(props: {
  field: 'consentText' | 'instructionsText' | 'completionText';
  label: string;
  hint: string;
}) {
  const value = useStudyDesigner((s) => s.form[props.field]);
  const setField = useStudyDesigner((s) => s.setField);
  return (
    <Field input={props.field} label={props.label} hint={props.hint} wide>
      {(a) => (
        <textarea
          {...a}
          rows={4}
          maxLength={STUDY_LIMITS.maxTextLength}
          value={value}
          onChange={(e) => setField(props.field, e.target.value)}
        />
      )}
    </Field>
  );
}

function Check(props: { field: 'strict' | 'jatos' | 'server'; label: string; hint: string }) {
  const id = useId();
  const checked = useStudyDesigner((s) => s.form[props.field]);
  const setField = useStudyDesigner((s) => s.setField);
  const problems = useContext(Problems).get(props.field);
  return (
    <div className="sd-check" data-field={props.field}>
      <input
        id={id}
        name={props.field}
        type="checkbox"
        checked={checked}
        aria-invalid={Boolean(problems)}
        aria-describedby={`${id}-hint${problems ? ` ${id}-error` : ''}`}
        onChange={(e) => setField(props.field, e.target.checked)}
      />
      <label htmlFor={id}>{props.label}</label>
      <span id={`${id}-hint`} className="sd-hint">
        {props.hint}
      </span>
      {problems && (
        <span id={`${id}-error`} className="sd-error" data-testid="study-field-error" data-field={props.field}>
          {problems.join(' ')}
        </span>
      )}
    </div>
  );
}

/** A problem about a whole group (e.g. "a study has from 1 to 12 conditions"). */
function GroupProblem({ input }: { input: string }) {
  const problems = useContext(Problems).get(input);
  if (!problems) return null;
  return (
    <p className="sd-error" data-testid="study-field-error" data-field={input}>
      {problems.join(' ')}
    </p>
  );
}

function Conditions() {
  const conditions = useStudyDesigner((s) => s.form.conditions);
  const setCondition = useStudyDesigner((s) => s.setCondition);
  const addCondition = useStudyDesigner((s) => s.addCondition);
  const removeCondition = useStudyDesigner((s) => s.removeCondition);
  return (
    <fieldset>
      <legend>Conditions</legend>
      <p className="sd-hint">
        Between subjects: each participant gets one. A time limit shows a countdown; at 0 the trial is recorded as a
        timeout. Leave a limit empty for none.
      </p>
      <GroupProblem input="conditions" />
      <ol className="sd-conditions">
        {conditions.map((c, i) => (
          <li key={c.key} data-testid="study-condition" aria-label={`Condition ${i + 1}`}>
            <GroupProblem input={`conditions.${i}`} />
            <div className="sd-grid">
              <Field input={`conditions.${i}.id`} label="Id">
                {(a) => (
                  <input
                    {...a}
                    type="text"
                    autoComplete="off"
                    spellCheck={false}
                    value={c.id}
                    onChange={(e) => setCondition(i, 'id', e.target.value)}
                  />
                )}
              </Field>
              <Field input={`conditions.${i}.perPuzzleLimitS`} label="Seconds per puzzle">
                {(a) => (
                  <input
                    {...a}
                    type="text"
                    inputMode="numeric"
                    autoComplete="off"
                    placeholder="none"
                    value={c.perPuzzleLimitS}
                    onChange={(e) => setCondition(i, 'perPuzzleLimitS', e.target.value)}
                  />
                )}
              </Field>
              <Field input={`conditions.${i}.overallLimitS`} label="Seconds overall">
                {(a) => (
                  <input
                    {...a}
                    type="text"
                    inputMode="numeric"
                    autoComplete="off"
                    placeholder="none"
                    value={c.overallLimitS}
                    onChange={(e) => setCondition(i, 'overallLimitS', e.target.value)}
                  />
                )}
              </Field>
              <Field input={`conditions.${i}.display`} label="Display">
                {(a) => (
                  <select
                    {...a}
                    value={c.display}
                    onChange={(e) => setCondition(i, 'display', e.target.value as (typeof DISPLAYS)[number])}
                  >
                    {DISPLAYS.map((d) => (
                      <option key={d} value={d}>
                        {d}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <Field input={`conditions.${i}.scratchpad`} label="Scratchpad">
                {(a) => (
                  <select
                    {...a}
                    value={c.scratchpad ? 'on' : 'off'}
                    onChange={(e) => setCondition(i, 'scratchpad', e.target.value === 'on')}
                  >
                    <option value="off">off</option>
                    <option value="on">on</option>
                  </select>
                )}
              </Field>
            </div>
            <button
              type="button"
              className="sd-small"
              disabled={conditions.length <= 1}
              onClick={() => removeCondition(i)}
              aria-label={`Remove condition ${c.id || i + 1}`}
            >
              Remove
            </button>
          </li>
        ))}
      </ol>
      <button
        type="button"
        data-testid="study-add-condition"
        disabled={conditions.length >= STUDY_LIMITS.maxConditions}
        onClick={addCondition}
      >
        Add a condition
      </button>
    </fieldset>
  );
}

function Sinks() {
  const urls = useStudyDesigner((s) => s.form.httpSinks);
  const setHttpSink = useStudyDesigner((s) => s.setHttpSink);
  const addHttpSink = useStudyDesigner((s) => s.addHttpSink);
  const removeHttpSink = useStudyDesigner((s) => s.removeHttpSink);
  return (
    <fieldset>
      <legend>Where results go</legend>
      <p className="sd-hint">
        Every participant can always download their own rows at the end. Sinks also receive each row as it is answered.
      </p>
      <GroupProblem input="sinks" />
      <Check
        field="jatos"
        label="JATOS"
        hint="when the study runs inside JATOS (import the .jzip below), each row goes to JATOS's result data"
      />
      <Check
        field="server"
        label="This results server"
        hint="the results server that serves this page (npm run serve): each row is POSTed to api/rows beside the participant's page; register the study with it (beside the link) before participants start"
      />
      {urls.map((url, i) => (
        <div className="sd-row" key={i}>
          <Field input={`httpSinks.${i}`} label={`HTTP address ${i + 1}`} hint="each row is POSTed here as JSON">
            {(a) => (
              <input
                {...a}
                type="url"
                autoComplete="off"
                spellCheck={false}
                placeholder="https://"
                value={url}
                onChange={(e) => setHttpSink(i, e.target.value)}
              />
            )}
          </Field>
          <button
            type="button"
            className="sd-small"
            onClick={() => removeHttpSink(i)}
            aria-label={`Remove HTTP address ${i + 1}`}
          >
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        data-testid="study-add-sink"
        disabled={urls.length + 2 >= STUDY_LIMITS.maxSinks}
        onClick={addHttpSink}
      >
        Add an HTTP address
      </button>
    </fieldset>
  );
}

function OrderFields() {
  const mode = useStudyDesigner((s) => s.form.orderMode);
  const setField = useStudyDesigner((s) => s.setField);
  return (
    <>
      <Field input="orderMode" label="Order of the main items" hint="counterbalanced: N rotations of one fixed order">
        {(a) => (
          <select {...a} value={mode} onChange={(e) => setField('orderMode', e.target.value as 'session')}>
            <option value="session">each participant their own</option>
            <option value="counterbalanced">counterbalanced lists</option>
          </select>
        )}
      </Field>
      {mode === 'counterbalanced' && (
        <TextInput field="orderLists" label="Lists" numeric hint="from 2 to the number of main items" />
      )}
    </>
  );
}

/** Reads a definition file chosen by the researcher into the form. */
function LoadDefinition() {
  const id = useId();
  const loadForm = useStudyDesigner((s) => s.loadForm);
  const setLoadError = useStudyDesigner((s) => s.setLoadError);
  const loadError = useStudyDesigner((s) => s.loadError);
  return (
    <div className="sd-load">
      <label htmlFor={id}>Load a study definition (.json)</label>
      <input
        id={id}
        type="file"
        accept=".json,application/json"
        data-testid="study-json-load"
        aria-describedby={loadError ? `${id}-error` : undefined}
        onChange={async (e) => {
          const file = e.target.files?.[0];
          e.target.value = '';
          if (!file) return;
          const reading = file.size > 1_000_000 ? null : formFromFile(await file.text());
          if (!reading) setLoadError(`${file.name} is too large to be a study definition.`);
          else if (reading.ok) loadForm(reading.form);
          else setLoadError(`${file.name}: ${reading.message}`);
        }}
      />
      {loadError && (
        <p id={`${id}-error`} className="sd-error" role="alert" data-testid="study-json-error">
          {loadError}
        </p>
      )}
    </div>
  );
}

function Summary({ def }: { def: StudyDefinition }) {
  const s = studySummary(def);
  return (
    <section className="sd-panel" aria-labelledby="sd-summary" data-testid="study-summary">
      <h2 id="sd-summary">Items</h2>
      <p className="sd-hint" id="sd-cells">
        Main items per story length k and task
      </p>
      <table className="sd-table" aria-describedby="sd-cells">
        <thead>
          <tr>
            <th scope="col">k</th>
            <th scope="col">task</th>
            <th scope="col">items</th>
          </tr>
        </thead>
        <tbody>
          {s.cells.map((c) => (
            <tr key={`${c.k}-${c.task}`}>
              <td>{c.k}</td>
              <td>{c.task}</td>
              <td>{c.items}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p data-testid="study-summary-counts">
        {s.main} main, {s.practice} practice, {s.checks} attention check{s.checks === 1 ? '' : 's'}:{' '}
        <strong>{s.trials} trials</strong>, about <strong>{s.minutes} minutes</strong>
      </p>
      <p className="sd-hint">
        Estimate: 1.4 min per puzzle, the mean of the paper&apos;s time-limited crowd workers (1 min 23 s).{' '}
        {def.conditions.length} condition{def.conditions.length === 1 ? '' : 's'} ({def.assignment} assignment).
      </p>
    </section>
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
      <p className="sd-link">
        <code ref={linkRef} data-testid="study-link">
          {link}
        </code>
      </p>
      <p className="sd-hint">
        {link.length} characters. Prolific adds PROLIFIC_PID, STUDY_ID and SESSION_ID to it; add{' '}
        <code>&amp;condition=&lt;id&gt;</code> to force a condition.
      </p>
      <div className="sd-actions">
        <button type="button" data-testid="study-link-copy" onClick={copy}>
          {copied ? 'Copied' : 'Copy link'}
        </button>
        <a className="sd-button" data-testid="study-preview" href={preview} target="_blank" rel="noopener">
          Preview (records nothing)
        </a>
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
      <p id="sd-jzip-hint" className="sd-hint" data-testid="study-jzip-hint">
        {dev
          ? DEV_SERVER_MESSAGE
          : 'The .jzip holds this app and this study: import it in JATOS (Import study); participants then open a JATOS study link (for Prolific, a General Single link), not the link above.'}
      </p>
      {archive.state === 'error' && (
        <p className="sd-error" role="alert" data-testid="study-jzip-error">
          {archive.message}
        </p>
      )}
      {def.sinks.some((s) => s.kind === 'server') && <RegisterWithServer token={token} />}
    </>
  );
}

/**
 * Registers the study with the results server that serves this page (POST api/studies with the
 * researcher's token), so that it accepts the participants' rows. The token is kept in this
 * component only: never stored, never put in the link.
 */
function RegisterWithServer({ token }: { token: string }) {
  const id = useId();
  const [secret, setSecret] = useState('');
  const [reply, setReply] = useState<RegisterReply | { kind: 'busy' } | null>(null);
  const register = async () => {
    setReply({ kind: 'busy' });
    setReply(await registerWithServer(token, secret.trim(), document.baseURI, (url, init) => fetch(url, init)));
  };
  return (
    <section className="sd-register" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Results server</h3>
      <p className="sd-hint" id={`${id}-hint`}>
        The server accepts rows of registered studies only. Its researcher token is in the <code>token</code> file of
        its data folder (or run <code>npm run cli -- study register</code>).
      </p>
      <div className="sd-field">
        <label htmlFor={id}>Researcher token</label>
        <input
          id={id}
          type="password"
          autoComplete="off"
          spellCheck={false}
          aria-describedby={`${id}-hint`}
          value={secret}
          onChange={(e) => setSecret(e.target.value)}
        />
      </div>
      <div className="sd-actions">
        <button
          type="button"
          data-testid="study-register"
          disabled={secret.trim() === '' || reply?.kind === 'busy'}
          onClick={register}
        >
          {reply?.kind === 'busy' ? 'Registering…' : 'Register with results server'}
        </button>
      </div>
      {reply && reply.kind !== 'busy' && (
        <p
          className={reply.kind === 'ok' ? 'sd-ok' : 'sd-error'}
          role={reply.kind === 'ok' ? 'status' : 'alert'}
          data-testid="study-register-result"
        >
          {reply.message}
        </p>
      )}
    </section>
  );
}

/** The study designer (`#/study`): every setting of a study, its problems, its link and files. */
export function StudyDesignerView() {
  const form = useStudyDesigner((s) => s.form);
  const reset = useStudyDesigner((s) => s.reset);
  const { problems, def } = useMemo(() => {
    const { all, byInput } = problemsByInput(form);
    return { problems: { all, byInput }, def: definitionFromForm(form) };
  }, [form]);
  const token = useMemo(() => (problems.all.length === 0 ? encodeStudyLink(def) : null), [problems, def]);

  return (
    <section className="sd" aria-labelledby="sd-title">
      <header className="sd-header">
        <h1 id="sd-title" tabIndex={-1} data-view-heading>
          Study designer
        </h1>
        <p className="sd-hint">
          A human study of CLUTRR puzzles like the paper&apos;s (Table 3): choose the items, conditions and texts; the
          participant link carries the whole study, and the same settings always give the same link.
        </p>
      </header>
      <div className="sd-top">
        <form className="sd-form" aria-label="Study settings" onSubmit={(e) => e.preventDefault()} noValidate>
          <Problems.Provider value={problems.byInput}>
            <fieldset>
              <legend>Items</legend>
              <div className="sd-grid">
                <TextInput field="studyId" label="Study id" hint="letters, digits, - and _; the study_id column" />
                <TextInput field="seed" label="Seed" numeric hint="fixes the puzzles every participant gets" />
                <TextInput field="k" label="Story lengths k" hint="comma-separated, each 1–10" />
                <TextInput field="tasks" label="Tasks" hint="comma-separated, 1–7 (1: clean)" />
                <TextInput field="itemsPerK" label="Items per k and task" numeric />
                <Choice field="templateSplit" label="Paraphrases" choices={TEMPLATE_SPLITS} />
                <TextInput
                  field="practice"
                  label="Practice items"
                  numeric
                  hint="with feedback, before the main items"
                />
                <TextInput
                  field="attentionChecks"
                  label="Attention checks"
                  numeric
                  hint="spread among the main items"
                />
              </div>
              <Check
                field="strict"
                label="Strict puzzles"
                hint="only puzzles solvable with the sound rules (the default for studies)"
              />
            </fieldset>
            <Conditions />
            <fieldset>
              <legend>Assignment &amp; order</legend>
              <div className="sd-grid">
                <Choice
                  field="assignment"
                  label="Condition assignment"
                  hint="balanced: a seeded counter; url: condition=<id> in the link"
                  choices={ASSIGNMENTS}
                />
                <OrderFields />
              </div>
            </fieldset>
            <fieldset>
              <legend>Texts (markdown)</legend>
              <Markdown field="consentText" label="Consent" hint="shown first; the participant accepts it to begin" />
              <Markdown field="instructionsText" label="Instructions" hint="shown after consent" />
              <Markdown field="completionText" label="Completion" hint="shown at the end, with the completion code" />
            </fieldset>
            <fieldset>
              <legend>Breaks &amp; completion</legend>
              <div className="sd-grid">
                <TextInput field="breakEvery" label="Break every N main trials" numeric hint="0 for no breaks" />
                <TextInput field="completionCode" label="Completion code" hint="e.g. Prolific's; may be empty" />
                <TextInput
                  field="redirectUrl"
                  label="Redirect address"
                  hint="after every row is acknowledged; may be empty"
                />
              </div>
            </fieldset>
            <fieldset>
              <legend>Reopened sessions</legend>
              <div className="sd-grid">
                <Choice
                  field="resumePolicy"
                  label="Resume policy"
                  hint="resume at the first unanswered trial, restart, or refuse"
                  choices={RESUME_POLICIES}
                />
                <TextInput
                  field="maxAgeMinutes"
                  label="Maximum age (minutes)"
                  numeric
                  hint="older sessions are not resumed"
                />
              </div>
            </fieldset>
            <Sinks />
            <div className="sd-actions">
              <LoadDefinition />
              <button type="button" className="sd-small" onClick={reset} data-testid="study-reset">
                Reset to the defaults
              </button>
            </div>
          </Problems.Provider>
        </form>
        <aside className="sd-side" aria-labelledby="sd-outputs">
          <section className="sd-panel">
            {token ? (
              <Outputs def={def} token={token} />
            ) : (
              <>
                <h2 id="sd-outputs">Participant link</h2>
                <div className="sd-alert" role="alert" data-testid="study-problems">
                  <p>
                    <strong>
                      No link while the study has {problems.all.length} problem{problems.all.length === 1 ? '' : 's'}:
                    </strong>
                  </p>
                  <ul>
                    {problems.all.map((p, i) => (
                      <li key={i}>
                        <button
                          type="button"
                          className="sd-goto"
                          onClick={() => {
                            const input = inputForProblem(p.field, form);
                            document.querySelector<HTMLElement>(`[name="${CSS.escape(input)}"]`)?.focus();
                          }}
                        >
                          {p.message}
                        </button>
                      </li>
                    ))}
                  </ul>
                </div>
              </>
            )}
          </section>
          {token && <Summary def={def} />}
          {token && (
            <section className="sd-panel" aria-labelledby="sd-cli">
              <h2 id="sd-cli">Same link from the command line</h2>
              <pre className="sd-cli" data-testid="study-cli">
                {cliCommand(def)}
              </pre>
            </section>
          )}
        </aside>
      </div>
    </section>
  );
}
