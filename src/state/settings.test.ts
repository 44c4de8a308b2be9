import { describe, expect, it } from 'vitest';
import { hrefForRoute, routeFromHash } from './routes';
import { DEFAULT_K, nextSeed, previousSeed, searchFromSettings, settingsFromSearch, textMode } from './settings';

describe('settings in the URL', () => {
  it('round-trips every setting, writing only what differs from the defaults', () => {
    const { settings, warnings } = settingsFromSearch(
      '?seed=abc&k=7&task=5&max-levels=4&min-child=1&max-child=3&p-marry=0.5&text=test&comb=2',
    );
    expect(warnings).toEqual([]);
    expect(settings).toEqual({
      seed: 'abc',
      k: 7,
      task: 5,
      family: { maxLevels: 4, minChild: 1, maxChild: 3, pMarry: 0.5 },
      text: { synthetic: false, templateSplit: true, half: 'test', combinationLength: 2, storyOrder: 'shuffled' },
    });
    expect(settingsFromSearch(searchFromSettings(settings)).settings).toEqual(settings);
    // Written with the CLI's spelling; links made with the old `comb` still open.
    expect(searchFromSettings(settings)).toMatch(/&text=test&combination-length=2$/);
    expect(
      searchFromSettings({
        ...settings,
        family: { maxLevels: 3, minChild: 4, maxChild: 4, pMarry: 1 },
        text: { synthetic: false, templateSplit: false, half: 'train', combinationLength: 1, storyOrder: 'shuffled' },
      }),
    ).toBe('?seed=abc&k=7&task=5');
  });

  it('falls back to defaults for bad values and says why', () => {
    const { settings, warnings } = settingsFromSearch('?seed=1&k=99&task=0&p-marry=2&text=nope', () => 'x');
    expect(settings.k).toBe(DEFAULT_K);
    expect(settings.task).toBe(1);
    expect(settings.family.pMarry).toBe(1);
    expect(textMode(settings.text)).toBe('paraphrase');
    expect(warnings).toHaveLength(4);
    expect(warnings[0]).toMatch(/k=99/);
  });

  it('refuses a seed too long for a link, and says so', () => {
    const long = settingsFromSearch(`?seed=${'x'.repeat(100_000)}&k=3`, () => 'fresh');
    expect(long.settings.seed).toBe('fresh');
    expect(long.settings.k).toBe(3);
    expect(long.warnings).toEqual(['URL parameter seed ignored: it is 100000 characters long; seeds have at most 200']);
    expect(settingsFromSearch(`?seed=${'y'.repeat(200)}`).settings.seed).toHaveLength(200);
  });

  it('chooses a seed when the URL has none', () => {
    expect(settingsFromSearch('', () => '123').settings.seed).toBe('123');
    expect(settingsFromSearch('?seed=%20', () => '9').settings.seed).toBe('9');
  });

  it('counts seeds up', () => {
    expect(nextSeed('41')).toBe('42');
    expect(nextSeed('abc')).toBe('abc-1');
    expect(nextSeed('abc-1')).toBe('abc-2');
    // Seeds are strings: digits a number cannot hold exactly are never rounded (issue 23).
    expect(nextSeed('99999999999999999999')).toBe('99999999999999999999-1');
    expect(nextSeed('99999999999999999999-1')).toBe('99999999999999999999-2');
    expect(nextSeed('a-99999999999999999999')).toBe('a-99999999999999999999-1');
    expect(nextSeed('9007199254740990')).toBe('9007199254740991');
  });

  it('previousSeed undoes nextSeed', () => {
    for (const seed of ['41', 'abc', 'abc-1', 'abc-7', '99999999999999999999', '99999999999999999999-3']) {
      expect(previousSeed(nextSeed(seed))).toBe(seed);
    }
    expect(previousSeed('0')).toBeNull();
    expect(previousSeed('abc')).toBeNull();
  });
});

describe('routes', () => {
  it('reads the view from the hash', () => {
    expect(routeFromHash('')).toBe('puzzle');
    expect(routeFromHash('#/')).toBe('puzzle');
    expect(routeFromHash('#/classroom')).toBe('classroom');
    expect(routeFromHash('#/dataset')).toBe('dataset');
    expect(routeFromHash('#/audit')).toBe('audit');
    expect(routeFromHash('#/nowhere')).toBe('puzzle');
  });
  it('keeps the query in links', () => {
    expect(hrefForRoute('classroom', '?seed=1&k=2&task=1')).toBe('?seed=1&k=2&task=1#/classroom');
    expect(hrefForRoute('puzzle', '?seed=1')).toBe('?seed=1#/');
  });
});
