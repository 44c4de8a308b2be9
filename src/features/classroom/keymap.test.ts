import { describe, expect, it } from 'vitest';
import { actionForKey, capsFor, CLASSROOM_KEYMAP } from './keymap';

describe('the classroom keymap', () => {
  it('maps each key to one action', () => {
    const keys = CLASSROOM_KEYMAP.flatMap((b) => b.keys);
    expect(new Set(keys).size).toBe(keys.length);
    expect(actionForKey('ArrowRight')).toBe('next');
    expect(actionForKey(' ')).toBe('next');
    expect(actionForKey('G')).toBe('guess');
    expect(actionForKey('Escape')).toBe('exit');
    expect(actionForKey('n')).toBe('nextPuzzle');
    expect(actionForKey('P')).toBe('previousPuzzle');
    expect(actionForKey('x')).toBeNull();
  });

  it('documents every action once', () => {
    const actions = CLASSROOM_KEYMAP.map((b) => b.action);
    expect(new Set(actions).size).toBe(actions.length);
    expect(capsFor('guess')).toBe('G');
    expect(capsFor('exit')).toBe('Esc');
  });
});
