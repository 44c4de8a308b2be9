import type { FamilyParams } from '../../core/family/family';
import type { TextOptions } from '../../worker/protocol';
import { DEFAULT_K, DEFAULT_TASK, DEFAULT_TEXT, freshSeed, nextSeed, sameSettings, type Settings } from '../settings';
import { DEFAULT_FAMILY } from '../../core/family/family';
import type { SliceCreator } from './types';

export interface SettingsSlice {
  readonly settings: Settings;
  /** Problems with the URL's parameters, shown beside the controls. */
  readonly urlWarnings: readonly string[];
  /** Changes settings and loads the puzzle they describe (nothing happens when unchanged). */
  setSettings(patch: Partial<Omit<Settings, 'family' | 'text'>>): void;
  setFamily(patch: Partial<FamilyParams>): void;
  setText(patch: Partial<TextOptions>): void;
  /** Replaces all settings (from the URL) and loads. */
  replaceSettings(settings: Settings, warnings?: readonly string[]): void;
  /** The next seed: a new puzzle with the same settings. */
  newPuzzle(): void;
}

export const initialSettings = (): Settings => ({
  seed: freshSeed(),
  k: DEFAULT_K,
  task: DEFAULT_TASK,
  family: DEFAULT_FAMILY,
  text: DEFAULT_TEXT,
});

export const createSettingsSlice: SliceCreator<SettingsSlice> = (set, get) => {
  const apply = (next: Settings) => {
    const before = get();
    if (sameSettings(before.settings, next) && before.origin === 'generated' && before.status !== 'error') return;
    set({ settings: next, urlWarnings: [] });
    void get().requestPuzzle();
  };
  return {
    settings: initialSettings(),
    urlWarnings: [],
    setSettings: (patch) => apply({ ...get().settings, ...patch }),
    setFamily: (patch) => apply({ ...get().settings, family: { ...get().settings.family, ...patch } }),
    setText: (patch) => apply({ ...get().settings, text: { ...get().settings.text, ...patch } }),
    replaceSettings: (settings, warnings = []) => {
      set({ settings, urlWarnings: warnings });
      void get().requestPuzzle();
    },
    newPuzzle: () => apply({ ...get().settings, seed: nextSeed(get().settings.seed) }),
  };
};
