import { useId, useState, type InputHTMLAttributes } from 'react';
import { buildPsychDsDownload, saveBlob } from './psychDsDownload';
import { exportUrl, useResults } from './store';

function targetOf(address: string, study: string): string {
  try {
    return exportUrl(address, study);
  } catch {
    return '';
  }
}

/**
 * Fetch the rows from a results server (`npm run serve`) with the researcher token: the server's
 * JSON export, `GET <server>/api/results.json[?study=<id>]` with `Authorization: Bearer <token>`.
 * The token is kept in this form only (never stored, never put in a URL).
 */
export function ServerFetch() {
  const id = useId();
  const fetchFromServer = useResults((s) => s.fetchFromServer);
  const server = useResults((s) => s.server);
  const [address, setAddress] = useState(() => location.origin);
  const [token, setToken] = useState('');
  const [study, setStudy] = useState('');
  const [psychDs, setPsychDs] = useState<{ busy: boolean; ok: boolean; message: string } | null>(null);
  const target = targetOf(address, study);
  return (
    <details className="results__server" data-testid="results-server">
      <summary>Fetch from a results server</summary>
      <form
        data-testid="results-server-form"
        onSubmit={(e) => {
          e.preventDefault();
          void fetchFromServer(address, token, study);
        }}
      >
        <ServerField
          id={`${id}-a`}
          label="Server address"
          data-testid="results-server-url"
          type="url"
          value={address}
          onValue={setAddress}
          required
        />
        <ServerField
          id={`${id}-t`}
          label="Researcher token"
          data-testid="results-server-token"
          type="password"
          autoComplete="off"
          value={token}
          onValue={setToken}
          required
        />
        <ServerField
          id={`${id}-s`}
          label="Study id (empty: every study)"
          data-testid="results-server-study"
          value={study}
          onValue={setStudy}
        />
        <p className="hint">
          Asks <code>{target || '(not an address)'}</code> with the token as <code>Authorization: Bearer</code>.
        </p>
        <button type="submit" data-testid="results-fetch" disabled={server.status === 'fetching'}>
          Fetch rows
        </button>
        <button
          type="button"
          data-testid="results-psychds"
          disabled={psychDs?.busy === true}
          onClick={() => {
            setPsychDs({ busy: true, ok: true, message: 'Building the psych-DS dataset…' });
            void buildPsychDsDownload(address, token, study).then((r) => {
              if (r.zip && r.fileName) saveBlob(r.zip, r.fileName);
              setPsychDs({ busy: false, ok: r.ok, message: r.message });
            });
          }}
        >
          Download psych-DS dataset (.zip)
        </button>
        {psychDs && (
          <p
            className={psychDs.ok ? 'hint' : 'results__alert'}
            role={psychDs.ok ? 'status' : 'alert'}
            data-testid="results-psychds-status"
          >
            {psychDs.message}
          </p>
        )}
        {server.status !== 'idle' && (
          <p
            className={server.status === 'error' ? 'results__alert' : 'hint'}
            role={server.status === 'error' ? 'alert' : 'status'}
            data-testid="results-server-status"
            data-status={server.status}
          >
            {server.message}
          </p>
        )}
      </form>
    </details>
  );
}

/** One labelled input of the server form; `onValue` gets what is typed. */
function ServerField({
  id,
  label,
  onValue,
  ...input
}: { id: string; label: string; value: string; onValue: (value: string) => void } & Omit<
  InputHTMLAttributes<HTMLInputElement>,
  'id' | 'value' | 'onChange'
>) {
  return (
    <div className="results__field">
      <label htmlFor={id}>{label}</label>
      <input id={id} {...input} onChange={(e) => onValue(e.target.value)} />
    </div>
  );
}
