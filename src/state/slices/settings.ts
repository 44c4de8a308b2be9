import type { FamilyParams } from '../../core/family/family';
import type { ExplorerText } from '../../worker/protocol';
import { DEFAULT_K, DEFAULT_TASK, DEFAULT_TEXT, freshSeed, nextSeed, sameSettings, type Settings } from '../settings';
import { DEFAULT_FAMILY } from '../../core/family/family';
import type { TemplateReading } from '../../worker/templatesClient';
import { puzzleService } from '../service';
import type { SliceCreator } from './types';

export interface SettingsSlice {
  readonly settings: Settings;
  /** Problems with the URL's parameters, shown beside the controls. */
  readonly urlWarnings: readonly string[];
  /** Changes settings and loads the puzzle they describe (nothing happens when unchanged). */
  setSettings(patch: Partial<Omit<Settings, 'family' | 'text'>>): void;
  setFamily(patch: Partial<FamilyParams>): void;
  setText(patch: Partial<ExplorerText>): void;
  /** Replaces all settings (from the URL) and loads. */
  replaceSettings(settings: Settings, warnings?: readonly string[]): void;
  /** The next seed: a new puzzle with the same settings. */
  newPuzzle(): void;
  /**
   * A template file in CLUTRR's JSON shape for the paraphrases, or null for our bank. Not a
   * setting: the URL does not carry it (a link opens with our bank).
   */
  readonly templates: TemplateReading | null;
  /** Names the file in the worker (`ExplorerText.templates`); a new file gets a new id. */
  readonly templatesId: number;
  /** Uses a template file (null: our bank again) and rewrites the story with it. */
  setTemplates(reading: TemplateReading | null): void;
}

/**
 * The text options a request carries: the settings' text, plus the id of the template file when
 * one with usable templates is loaded and the text is paraphrased.
 */
export function requestText(
  text: ExplorerText,
  templates: Pick<TemplateReading, 'source'> | null,
  templatesId: number,
): ExplorerText {
  const { templates: _ignored, ...plain } = text;
  return templates?.source && !text.synthetic ? { ...plain, templates: templatesId } : plain;
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
    templates: null,
    templatesId: 0,
    setTemplates: (templates) => {
      const templatesId = get().templatesId + 1;
      puzzleService().setTemplates(templatesId, templates?.source ?? null);
      set({ templates, templatesId });
      const { origin, puzzle, renderer } = get();
      // A puzzle opened from elsewhere keeps its own text; one written here is written again.
      if (origin === 'external') {
        if (puzzle && renderer !== 'external') void get().showExternal(puzzle);
      } else void get().requestPuzzle();
    },
  };
};
