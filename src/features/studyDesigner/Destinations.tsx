import { MAX_SEND_INSTRUCTIONS, SINKS } from '../../study/definition/sinks';
import { STUDY_LIMITS } from '../../study/definition/vocabulary';
import { Check, Field, GroupProblem } from './fields';
import { useStudyDesigner } from './store';

/**
 * Where results go: one box per sink kind (labels and hints from the sink table), none ticked
 * until the researcher chooses; the HTTP addresses and the instructions for sending the file
 * show under their boxes.
 */
export function Destinations() {
  const http = useStudyDesigner((s) => s.form.http);
  const download = useStudyDesigner((s) => s.form.download);
  const urls = useStudyDesigner((s) => s.form.httpSinks);
  const chosen = useStudyDesigner(
    (s) => [s.form.jatos, s.form.server, s.form.http, s.form.download].filter(Boolean).length,
  );
  const addHttpSink = useStudyDesigner((s) => s.addHttpSink);
  return (
    <fieldset data-testid="study-destinations">
      <legend>Where results go</legend>
      <p className="hint">
        Choose at least one; nothing is chosen for you, and there is no participant link until you do. Participants see
        every destination on the consent screen before they agree.
      </p>
      <GroupProblem input="sinks" />
      <Check field="server" label={SINKS.server.label} hint={SINKS.server.help} />
      <Check field="jatos" label={SINKS.jatos.label} hint={SINKS.jatos.help} />
      <Check
        field="http"
        label={SINKS.http.label}
        hint={SINKS.http.help}
        onChange={(on) => {
          if (on && urls.length === 0) addHttpSink();
        }}
      />
      {http && <HttpAddresses maxAddresses={STUDY_LIMITS.maxSinks - chosen + 1} />}
      <Check field="download" label={SINKS.download.label} hint={SINKS.download.help} />
      {download && <SendInstructions />}
    </fieldset>
  );
}

function HttpAddresses({ maxAddresses }: { maxAddresses: number }) {
  const urls = useStudyDesigner((s) => s.form.httpSinks);
  const setHttpSink = useStudyDesigner((s) => s.setHttpSink);
  const addHttpSink = useStudyDesigner((s) => s.addHttpSink);
  const removeHttpSink = useStudyDesigner((s) => s.removeHttpSink);
  return (
    <div className="sd-sub">
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
            disabled={urls.length <= 1}
            onClick={() => removeHttpSink(i)}
            aria-label={`Remove HTTP address ${i + 1}`}
          >
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        className="sd-small"
        data-testid="study-add-sink"
        disabled={urls.length >= maxAddresses}
        onClick={addHttpSink}
      >
        Add an HTTP address
      </button>
    </div>
  );
}

function SendInstructions() {
  const value = useStudyDesigner((s) => s.form.sendInstructions);
  const setField = useStudyDesigner((s) => s.setField);
  return (
    <div className="sd-sub">
      <Field
        input="sendInstructions"
        label="How participants send you the file"
        hint="shown at the end beside the download, before the completion code; e.g. “E-mail the file to lab@example.org with the subject CLUTRR.”"
        wide
      >
        {(a) => (
          <textarea
            {...a}
            rows={3}
            maxLength={MAX_SEND_INSTRUCTIONS}
            value={value}
            onChange={(e) => setField('sendInstructions', e.target.value)}
          />
        )}
      </Field>
    </div>
  );
}
