import { describe, expect, it } from 'vitest';
import { formatBytes, formatCount } from './format';

describe('formatCount and formatBytes', () => {
  it('groups thousands', () => {
    expect([0, 999, 1000, 10300, 1234567].map(formatCount)).toEqual(['0', '999', '1,000', '10,300', '1,234,567']);
  });

  it('names sizes in powers of 1,024', () => {
    expect([1, 1000, 1536, 70 * 2 ** 20, 556_142_943, 3 * 2 ** 40].map(formatBytes)).toEqual([
      '1 byte',
      '1,000 bytes',
      '1.5 KB',
      '70 MB',
      '530 MB',
      '3.0 TB',
    ]);
  });
});
