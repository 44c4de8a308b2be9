import { describe, expect, it } from 'vitest';
import { formatTemplateStats, jaccard, templateStats, templateWords } from './stats';

describe('templateWords', () => {
  it('drops placeholders and splits on anything that is not a letter', () => {
    expect(templateWords("ENT_0_male's son-in-law, ENT_1_male, waved 2 times!")).toEqual([
      's',
      'son',
      'in',
      'law',
      'waved',
      'times',
    ]);
  });
});

describe('jaccard', () => {
  it('is |A∩B| / |A∪B|', () => {
    expect(jaccard(new Set(['a', 'b']), new Set(['b', 'c']))).toBeCloseTo(1 / 3);
    expect(jaccard(new Set(), new Set())).toBe(0);
  });
});

describe('templateStats', () => {
  const bank = {
    father: {
      'male-male': ['ENT_0_male met his father ENT_1_male.', 'ENT_1_male is the father of ENT_0_male.'],
      'female-male': ['ENT_0_female met her father ENT_1_male.'],
    },
    'father-sister': { 'male-male-female': ['ENT_0_male and his father ENT_1_male saw his sister ENT_2_female.'] },
  };

  it('counts keys, paraphrases and words, and averages overlap within keys of two or more', () => {
    const s = templateStats(bank);
    expect(s.bySize[1]).toMatchObject({ keys: 1, paraphrases: 3, keysWithPairs: 1 });
    expect(s.bySize[2]).toMatchObject({ keys: 1, paraphrases: 1, keysWithPairs: 0, jaccard1: 0 });
    expect(s.bySize[3].keys).toBe(0);
    // father: {met,his,father} {is,the,father,of} {met,her,father}: pairs 1/6, 2/4, 1/6.
    expect(s.bySize[1].jaccard1).toBeCloseTo((1 / 6 + 2 / 4 + 1 / 6) / 3);
    expect(s.total.words).toBe(
      new Set(['met', 'his', 'father', 'is', 'the', 'of', 'her', 'and', 'saw', 'sister']).size,
    );
  });

  it('ends with the one-line summary', () => {
    const last = formatTemplateStats(templateStats(bank)).split('\n').pop();
    expect(last).toMatch(/^keys1=1 keys2=1 keys3=0 paraphrases=4 words=10 jaccard1=0\.278 jaccard2=0\.\d{3}$/);
  });
});
