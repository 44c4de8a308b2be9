/**
 * The language-model endpoint the user typed (URL, model name, key, prompt), shared by the
 * explorer, the dashboard and the models view. Kept in this page's memory only: never in a link
 * or an export. Only when the user ticks "remember on this device" is it written to
 * localStorage (key, too: the tick says so), and unticking removes it.
 */
import { create } from 'zustand';
import type { PromptKind } from '../prompt';

export interface LlmSettings {
  readonly url: string;
  readonly model: string;
  readonly apiKey: string;
  readonly prompt: PromptKind;
  readonly remember: boolean;
}

export interface LlmSettingsActions {
  set(patch: Partial<Omit<LlmSettings, 'remember'>>): void;
  setRemember(remember: boolean): void;
}

const STORAGE_KEY = 'clutrr-lab:llm-endpoint';
const EMPTY: LlmSettings = { url: '', model: '', apiKey: '', prompt: 'zero-shot', remember: false };

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

function remembered(): LlmSettings {
  const raw = storage()?.getItem(STORAGE_KEY);
  if (!raw) return EMPTY;
  try {
    const v = JSON.parse(raw) as Partial<LlmSettings>;
    const str = (x: unknown) => (typeof x === 'string' ? x : '');
    const prompt = v.prompt === 'few-shot' || v.prompt === 'cot' ? v.prompt : 'zero-shot';
    return { url: str(v.url), model: str(v.model), apiKey: str(v.apiKey), prompt, remember: true };
  } catch {
    return EMPTY;
  }
}

function save(s: LlmSettings) {
  const st = storage();
  if (!st) return;
  if (!s.remember) st.removeItem(STORAGE_KEY);
  else st.setItem(STORAGE_KEY, JSON.stringify({ url: s.url, model: s.model, apiKey: s.apiKey, prompt: s.prompt }));
}

export const useLlmSettings = create<LlmSettings & LlmSettingsActions>()((set, get) => ({
  ...remembered(),
  set(patch) {
    set(patch);
    save(get());
  },
  setRemember(remember) {
    set({ remember });
    save(get());
  },
}));

/** The settings are enough to ask (a URL and a model name). */
export const llmReady = (s: Pick<LlmSettings, 'url' | 'model'>) => s.url.trim() !== '' && s.model.trim() !== '';
