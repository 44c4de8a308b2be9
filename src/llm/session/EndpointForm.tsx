import { useId } from 'react';
import { PROMPT_KINDS, PROMPTS, type PromptKind } from '../prompt';
import { useLlmSettings } from './settings';
import './llm.css';

/**
 * Where to ask a language model: the endpoint's URL, the model's name, a key (optional), the
 * prompt, and "remember on this device". One form, shared by every place that asks (the values
 * are the session's, src/llm/session/settings.ts). Test ids: `llm-url`, `llm-model`, `llm-key`,
 * `llm-prompt`, `llm-remember`.
 */
export function EndpointForm({ disabled = false }: { disabled?: boolean }) {
  const id = useId();
  const s = useLlmSettings();
  return (
    <fieldset className="llm-form" disabled={disabled}>
      <legend className="visually-hidden">The language model to ask</legend>
      <label htmlFor={`${id}-url`}>Endpoint</label>
      <input
        id={`${id}-url`}
        data-testid="llm-url"
        type="url"
        inputMode="url"
        autoComplete="off"
        spellCheck={false}
        placeholder="http://127.0.0.1:8080/v1"
        value={s.url}
        onChange={(e) => s.set({ url: e.target.value })}
      />
      <label htmlFor={`${id}-model`}>Model</label>
      <input
        id={`${id}-model`}
        data-testid="llm-model"
        autoComplete="off"
        spellCheck={false}
        placeholder="llama3.1:8b"
        value={s.model}
        onChange={(e) => s.set({ model: e.target.value })}
      />
      <label htmlFor={`${id}-key`}>Key (optional)</label>
      <input
        id={`${id}-key`}
        data-testid="llm-key"
        type="password"
        autoComplete="off"
        spellCheck={false}
        value={s.apiKey}
        onChange={(e) => s.set({ apiKey: e.target.value })}
      />
      <label htmlFor={`${id}-prompt`}>Prompt</label>
      <select
        id={`${id}-prompt`}
        data-testid="llm-prompt"
        value={s.prompt}
        onChange={(e) => s.set({ prompt: e.target.value as PromptKind })}
      >
        {PROMPT_KINDS.map((k) => (
          <option key={k} value={k}>
            {PROMPTS[k].label}
          </option>
        ))}
      </select>
      <span className="llm-form__remember">
        <input
          id={`${id}-remember`}
          data-testid="llm-remember"
          type="checkbox"
          checked={s.remember}
          onChange={(e) => s.setRemember(e.target.checked)}
        />
        <label htmlFor={`${id}-remember`}>Remember on this device (the key too)</label>
      </span>
      <p className="hint llm-form__note">
        Kept in this tab only{s.remember ? ' and in this browser’s storage' : ''}: never in a link or an export. The
        story and question are sent to this endpoint and nowhere else.
      </p>
    </fieldset>
  );
}
