import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { generatePuzzle } from '../core/puzzle/puzzle';
import { readTemplateFiles } from '../worker/templatesClient';
import { setPuzzleService } from './service';
import { searchFromSettings } from './settings';
import { requestText } from './slices/settings';
import { createAppStore } from './store';
import { createMainThreadService } from './testing';

const mini = readTemplateFiles([
  { name: 'templates-mini.json', text: readFileSync('e2e/fixtures/templates-mini.json', 'utf8') },
]);

function seedOfMini(): string {
  for (let seed = 1; seed < 500; seed++) {
    const p = generatePuzzle({ seed: String(seed), k: 1, task: 1 });
    if (['son', 'daughter', 'niece'].includes(p.target.word)) return String(seed);
  }
  throw new Error('no seed found');
}

beforeEach(() => setPuzzleService(createMainThreadService()));

describe('requestText', () => {
  const text = {
    synthetic: false,
    templateSplit: false,
    half: 'train',
    combinationLength: 1,
    storyOrder: 'shuffled',
  } as const;
  it('adds the file id only for a usable file and paraphrased text', () => {
    expect(requestText(text, null, 4)).toEqual(text);
    expect(requestText(text, { source: null }, 4)).toEqual(text);
    expect(requestText(text, mini, 4)).toEqual({ ...text, templates: 4 });
    expect(requestText({ ...text, templateSplit: true, half: 'test' }, mini, 5)).toEqual({
      synthetic: false,
      templateSplit: true,
      half: 'test',
      combinationLength: 1,
      templates: 5,
      storyOrder: 'shuffled',
    });
    expect(requestText({ ...text, synthetic: true }, mini, 4)).toEqual({
      synthetic: true,
      templateSplit: false,
      half: 'train',
      combinationLength: 1,
      storyOrder: 'shuffled',
    });
  });
});

describe('a template file in the store', () => {
  it('rewrites the story with the file, keeps the URL, and goes back to our bank', async () => {
    const store = createAppStore();
    store.setState({ settings: { ...store.getState().settings, seed: seedOfMini(), k: 1, task: 1 } });
    await store.getState().requestPuzzle();
    const ours = store.getState().story!.story;
    const search = searchFromSettings(store.getState().settings);
    expect(ours).not.toMatch(/lighthouse/);

    store.getState().setTemplates(mini);
    await new Promise((r) => setTimeout(r, 10));
    expect(store.getState().story!.story).toMatch(/lighthouse/);
    expect(store.getState().renderer).toContain('templates-mini.json');
    expect(searchFromSettings(store.getState().settings)).toBe(search);

    store.getState().setTemplates(null);
    await new Promise((r) => setTimeout(r, 10));
    expect(store.getState().story!.story).toBe(ours);
  });
});
