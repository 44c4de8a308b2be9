import { useId, useState } from 'react';
import { registerWithServer, type RegisterReply } from './register';

/**
 * Registers the study with the results server that serves this page (POST api/studies with the
 * researcher's token), so that it accepts the participants' rows. The token is kept in this
 * component only: never stored, never put in the link.
 */
export function RegisterWithServer({ token }: { token: string }) {
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
      <p className="hint" id={`${id}-hint`}>
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
