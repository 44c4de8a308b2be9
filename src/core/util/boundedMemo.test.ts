import { describe, expect, it } from 'vitest';
import { boundedMemo } from './boundedMemo';

describe('boundedMemo', () => {
  it('computes a key once while it is remembered, and forgets everything past the limit', () => {
    const calls: string[] = [];
    const upper = boundedMemo(2, (s: string) => {
      calls.push(s);
      return s.toUpperCase();
    });
    expect([upper('a'), upper('b'), upper('a')]).toEqual(['A', 'B', 'A']);
    expect(calls).toEqual(['a', 'b']);
    upper('c'); // a third key: the cache starts again
    upper('a');
    expect(calls).toEqual(['a', 'b', 'c', 'a']);
  });
});
