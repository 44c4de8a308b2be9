import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { generatePuzzle } from '../core/puzzle/puzzle';
import { readTemplateFiles } from './templatesClient';
import { handlers } from './handlers';
import type { ExplorerText } from './protocol';
import { rendererKey, renderStory, setTemplateSource } from './renderers';

const mini = readTemplateFiles([
  { name: 'templates-mini.json', text: readFileSync('e2e/fixtures/templates-mini.json', 'utf8') },
]).source!;

/** A k = 1 puzzle whose one fact is a son, daughter or niece (the file's keys). */
function puzzleOfMini() {
  for (let seed = 1; seed < 500; seed++) {
    const p = generatePuzzle({ seed: String(seed), k: 1, task: 1 });
    if (['son', 'daughter', 'niece'].includes(p.target.word)) return p;
  }
  throw new Error('no seed found');
}

afterEach(() => setTemplateSource(0, null));

/** Explorer text: one paraphrase per fact from the whole bank, shuffled, with what a test changes. */
const text = (patch: Partial<ExplorerText>): ExplorerText => ({
  synthetic: false,
  templateSplit: false,
  half: 'train',
  combinationLength: 1,
  storyOrder: 'shuffled',
  ...patch,
});

describe('the renderer cache key', () => {
  it('names facts per paraphrase, template split and bank (one renderer writes both halves)', () => {
    expect(rendererKey(text({ combinationLength: 2 }))).toBe('paraphrase:2:whole:shuffled:bank');
    expect(rendererKey(text({ templateSplit: true, templates: 3 }))).toBe('paraphrase:1:split:shuffled:file-3');
    expect(rendererKey(text({ templateSplit: true, half: 'test', combinationLength: 9 as 3, templates: 4 }))).toBe(
      'paraphrase:3:split:shuffled:file-4',
    );
    // Plain sentences use no bank.
    expect(rendererKey(text({ synthetic: true, templates: 3 }))).toBe('synthetic:shuffled');
  });
});

describe('a template file in the worker', () => {
  it('writes the story with the file once set, and our bank without its id', () => {
    const p = puzzleOfMini();
    const ours = renderStory(p, text({}));
    expect(ours.story.story).not.toMatch(/lighthouse/);
    handlers.setTemplates({ id: 1, source: mini });
    const file = renderStory(p, text({ templates: 1 }));
    expect(file.story.story).toMatch(/lighthouse/);
    expect(file.renderer).toContain('templates-mini.json');
    // The same settings without the id still use our bank (its renderer is cached apart).
    expect(renderStory(p, text({})).story).toEqual(ours.story);
  });

  it('drops the renderers of a file replaced by another', () => {
    const p = puzzleOfMini();
    handlers.setTemplates({ id: 1, source: mini });
    expect(renderStory(p, text({ templates: 1 })).story.story).toMatch(/lighthouse/);
    const other = readTemplateFiles([
      {
        name: 'other.json',
        text: JSON.stringify({
          son: {
            'female-male': ['ENT_0_female waved at her son ENT_1_male from the harbour.'],
            'male-male': ['ENT_0_male waved at his son ENT_1_male from the harbour.'],
          },
          daughter: {
            'female-female': ['ENT_0_female waved at her daughter ENT_1_female from the harbour.'],
            'male-female': ['ENT_0_male waved at his daughter ENT_1_female from the harbour.'],
          },
          niece: {
            'female-female': ['ENT_0_female waved at her niece ENT_1_female from the harbour.'],
            'male-female': ['ENT_0_male waved at his niece ENT_1_female from the harbour.'],
          },
        }),
      },
    ]).source!;
    handlers.setTemplates({ id: 1, source: other });
    expect(renderStory(p, text({ templates: 1 })).story.story).toMatch(/harbour/);
  });

  it('refuses an id it does not hold (a restarted worker)', () => {
    const p = puzzleOfMini();
    handlers.setTemplates({ id: 2, source: mini });
    expect(() => renderStory(p, text({ templateSplit: true, templates: 1 }))).toThrow(/pick it again/);
    handlers.setTemplates({ id: 3, source: null });
    expect(() => renderStory(p, text({ templates: 2 }))).toThrow(/pick it again/);
  });
});
