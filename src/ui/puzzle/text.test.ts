import { describe, expect, it } from 'vitest';
import { generatePuzzle } from '../../core/puzzle/puzzle';
import { queryPeople, textSegments } from './text';

describe('textSegments', () => {
  it('splits names from text', () => {
    const p = generatePuzzle({ seed: 3, k: 2, task: 1 });
    const [a, b] = [p.entities[0]!, p.entities[1]!];
    const segs = textSegments(`[${a.name}] met [${b.name}].`, p.entities);
    expect(segs).toEqual([{ name: a.name, entity: a }, { text: ' met ' }, { name: b.name, entity: b }, { text: '.' }]);
    expect(textSegments('[Nobody] here', p.entities)[0]).toEqual({ name: 'Nobody', entity: undefined });
  });
});

describe('queryPeople', () => {
  it('names the question’s pair: B is asked about relative to A', () => {
    const p = generatePuzzle({ seed: 8, k: 3, task: 1 });
    expect(queryPeople(p)).toEqual({ a: p.entities[p.query[0]], b: p.entities[p.query[1]] });
  });
});
