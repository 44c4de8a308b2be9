import { describe, expect, it } from 'vitest';
import { searchFromSettings, settingsFromSearch } from './settings';

describe('strict in the URL', () => {
  it('is written as strict=1 only when on, and read back', () => {
    const { settings } = settingsFromSearch('?seed=2&k=10&task=1');
    expect('strict' in settings).toBe(false);
    expect(searchFromSettings(settings)).not.toContain('strict');
    const on = { ...settings, strict: true };
    expect(searchFromSettings(on)).toBe('?seed=2&k=10&task=1&strict=1');
    expect(settingsFromSearch(searchFromSettings(on)).settings.strict).toBe(true);
    expect(searchFromSettings({ ...settings, strict: false })).toBe('?seed=2&k=10&task=1');
  });

  it('ignores a value other than 1 or 0, with a warning', () => {
    const { settings, warnings } = settingsFromSearch('?seed=2&strict=yes');
    expect(settings.strict).toBeUndefined();
    expect(warnings).toEqual(['URL parameter strict=yes ignored: expected 1 or 0']);
  });
});
