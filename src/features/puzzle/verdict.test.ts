import { describe, expect, it } from 'vitest';
import { puzzleToRow } from '../../core/formats/fromPuzzle';
import { rowToPuzzle } from '../../core/formats/toPuzzle';
import type { ClutrrRow } from '../../core/formats/clutrrRow';
import { generatePuzzle } from '../../core/puzzle/puzzle';
import { createRng } from '../../core/random/rng';
import { renderPlain } from '../../core/text/plain';
import { labelVerdict, stepRule } from './verdict';

const p = generatePuzzle({ seed: 'view-verdict', k: 3, task: 1 });
const row: ClutrrRow = puzzleToRow(p, renderPlain(p, 'train', createRng(p.seed, 'text')), {
  index: 0,
  id: 'r1',
  split: 'train',
});
const as = (types: string[], genders: string[], target: string) =>
  rowToPuzzle({
    ...row,
    edgeTypes: types,
    genders: row.genders.map((g, i) => ({ ...g, gender: genders[i]! })),
    target,
  });

describe('labelVerdict', () => {
  it('trusts a generated puzzle', () => {
    expect(labelVerdict(p)).toMatchObject({ kind: 'generated', trusted: true, proofShown: true });
  });

  it('marks an imported row right only when the sound rules entail its label', () => {
    expect(labelVerdict(as(['brother', 'brother', 'son'], ['female', 'male', 'male', 'male'], 'nephew'))).toMatchObject(
      { kind: 'entailed', trusted: true, proofShown: true },
    );
    const unsupported = labelVerdict(as(['brother', 'brother', 'son'], ['female', 'male', 'male', 'male'], 'uncle'));
    expect(unsupported).toMatchObject({ kind: 'unsupported', trusted: false, proofShown: false });
    expect(unsupported.text).toContain('it derives nephew');
    const ambiguous = labelVerdict(
      as(['husband', 'son', 'grandmother'], ['female', 'male', 'male', 'female'], 'mother'),
    );
    expect(ambiguous).toMatchObject({ kind: 'ambiguous', trusted: false, proofShown: false });
    expect(ambiguous.text).toContain('mother-in-law');
  });

  it('says which assumption an assumed label needs, and when it is true in no family', () => {
    const impossible = labelVerdict(as(['son', 'mother', 'father'], ['male', 'male', 'female', 'male'], 'father'));
    expect(impossible).toMatchObject({
      kind: 'impossible',
      trusted: false,
      proofShown: true,
      badge: 'true in no family',
    });
    expect(impossible.text).toContain("my child's grandparent is my parent");
    const possible = labelVerdict(as(['daughter', 'brother', 'uncle'], ['male', 'female', 'male', 'male'], 'brother'));
    expect(possible).toMatchObject({ kind: 'assumed', trusted: false, badge: 'assumed (possible)' });
    expect(possible.text).toContain("my child's uncle or aunt is my sibling");
  });
});

describe('stepRule', () => {
  const t = (predicate: string) => ({ from: 0, to: 1, predicate, word: 'x' }) as never;
  it('tells sound steps from assumption steps and from steps no rule gives', () => {
    expect(stepRule({ head: t('grand'), body: [t('child'), t('child')] }).kind).toBe('sound');
    expect(stepRule({ head: t('sibling'), body: [t('child'), t('inv-un')] })).toEqual({
      kind: 'assumption',
      words: "my child's uncle or aunt is my sibling",
    });
    expect(stepRule({ head: t('inv-un'), body: [t('child'), t('child')] }).kind).toBe('none');
  });
});
