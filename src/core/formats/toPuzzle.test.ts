import { describe, expect, it } from 'vitest';
import { generatePuzzle, type Puzzle } from '../puzzle/puzzle';
import type { TaskId } from '../puzzle/tasks';
import { createRng } from '../random/rng';
import { renderPlain } from '../text/plain';
import { parseClutrrCsv, writeClutrrCsv } from './clutrrCsv';
import { CsvFormatError, type ClutrrRow } from './clutrrRow';
import { puzzleToRow } from './fromPuzzle';
import { isImportedPuzzle, parseTaskName, rowK, rowToPuzzle, rowToStory, storySentences } from './toPuzzle';

const rowOf = (p: Puzzle): ClutrrRow =>
  puzzleToRow(p, renderPlain(p, 'train', createRng(p.seed, 'text')), { index: 0, id: `id-${p.seed}`, split: 'train' });

/** Chains as a partition of fact ids (the generator may skip chain numbers; the grouping is what counts). */
const chainGroups = (p: Puzzle): number[][] => {
  const groups = new Map<number, number[]>();
  for (const f of p.facts) groups.set(f.chain, [...(groups.get(f.chain) ?? []), f.id]);
  return [...groups.values()];
};

describe('rowToPuzzle: the audit verdict it carries', () => {
  it('checks the row as the audit does, and knows an imported puzzle from a generated one', () => {
    const p = generatePuzzle({ seed: 'verdict', k: 3, task: 1 });
    const row = rowOf(p);
    const q = rowToPuzzle(row);
    expect(isImportedPuzzle(q)).toBe(true);
    expect(isImportedPuzzle(p)).toBe(false);
    expect(q.check?.verdict).toBe('entailed');
    const wrong = rowToPuzzle({ ...row, target: row.target === 'uncle' ? 'aunt' : 'uncle' });
    expect(wrong.check?.verdict).toBe('unsupported');
    const impossible = rowToPuzzle({
      ...row,
      edgeTypes: ['son', 'mother', 'father'],
      genders: row.genders.map((g, i) => ({ ...g, gender: ['male', 'male', 'female', 'male'][i]! })),
      target: 'father',
    });
    expect(impossible.check?.basis).toEqual({
      kind: 'assumed',
      rules: ['grandparent'],
      together: false,
      family: 'impossible',
    });
  });
});

describe('rowToPuzzle', () => {
  const cases: [TaskId, number][] = [
    [1, 2],
    [1, 4],
    [2, 3],
    [2, 4],
    [3, 3],
    [4, 3],
    [5, 4],
    [6, 3],
    [7, 3],
  ];

  it.each(cases)('rebuilds a generated task %i.%i puzzle from its CSV row (20 seeds)', (task, k) => {
    for (let s = 0; s < 20; s++) {
      const p = generatePuzzle({ seed: `toPuzzle:${task}.${k}:${s}`, k, task });
      // Through the file format, as an imported row would come.
      const [row] = parseClutrrCsv(writeClutrrCsv([rowOf(p)]), 'x.csv');
      const q = rowToPuzzle(row!);
      expect(q.k).toBe(p.k);
      expect(q.task).toBe(p.task);
      expect(q.entities.map((e) => [e.index, e.name, e.gender])).toEqual(
        p.entities.map((e) => [e.index, e.name, e.gender]),
      );
      expect(q.facts.map((f) => [f.id, f.from, f.to, f.predicate, f.word, f.kind])).toEqual(
        p.facts.map((f) => [f.id, f.from, f.to, f.predicate, f.word, f.kind]),
      );
      expect(chainGroups(q)).toEqual(chainGroups(p));
      expect(q.query).toEqual(p.query);
      expect(q.target).toEqual(p.target);
      expect(q.proof).toEqual(p.proof);
      expect(q.pattern).toBe(p.pattern);
      // The plain renderer writes one sentence per fact, so the written order is recovered exactly.
      const told = renderPlain(p, 'train', createRng(p.seed, 'text')).sentences.flatMap((x) => x.factIds);
      expect(q.storyOrder).toEqual(told);
      expect(q.untypedEdges).toEqual([]);
      expect(q.warnings).toEqual([]);
      expect(q.seed).toBe(`import:id-${p.seed}`);
    }
  });

  it('builds a minimal family: the story entities, no parents, spouses or children', () => {
    const p = generatePuzzle({ seed: 'family', k: 3, task: 1 });
    const q = rowToPuzzle(rowOf(p));
    expect(q.family.people).toHaveLength(p.entities.length);
    for (const person of q.family.people) {
      expect(person).toMatchObject({ parents: null, spouse: null, children: [], generation: 0 });
    }
    expect(q.entities.map((e) => e.person)).toEqual(q.entities.map((e) => e.index));
  });

  it('keeps edges without a type out of the facts, in untypedEdges (released noisy files)', () => {
    const p = generatePuzzle({ seed: 'untyped', k: 3, task: 3 });
    const full = rowOf(p);
    const row: ClutrrRow = { ...full, edgeTypes: full.edgeTypes.slice(0, 3) };
    const q = rowToPuzzle(row);
    expect(q.facts).toHaveLength(3);
    expect(q.facts.every((f) => f.kind === 'path')).toBe(true);
    expect(q.untypedEdges).toEqual(full.storyEdges.slice(3));
  });

  it('reads the neice spelling and drops proof steps naming unknown people with a warning', () => {
    const p = generatePuzzle({ seed: 'proof', k: 3, task: 1 });
    const row = rowOf(p);
    const broken: ClutrrRow = {
      ...row,
      proofState: [
        { head: ['Nobody', 'son', row.genders[1]!.name], body: row.proofState[0]!.body },
        ...row.proofState.slice(1),
      ],
    };
    const q = rowToPuzzle(broken);
    expect(q.proof).toHaveLength(p.proof.length - 1);
    expect(q.warnings[0]).toMatch(/proof_state step 1/);
    const niece = rowToPuzzle({ ...row, target: 'neice' });
    expect(niece.target).toEqual({ predicate: 'un', word: 'niece' });
  });

  it('names the column of an unknown relation word', () => {
    const row = rowOf(generatePuzzle({ seed: 'bad', k: 2, task: 1 }));
    const err = (() => {
      try {
        rowToPuzzle({ ...row, edgeTypes: ['son', 'cousin'] });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(CsvFormatError);
    expect((err as CsvFormatError).where.column).toBe('edge_types');
    expect(() => rowToPuzzle({ ...row, target: 'cousin' })).toThrow(/target/);
  });

  it('falls back to task 1 with a warning on an unknown task name', () => {
    const row = rowOf(generatePuzzle({ seed: 'task', k: 2, task: 1 }));
    const q = rowToPuzzle({ ...row, taskName: 'custom' });
    expect(q.task).toBe(1);
    expect(q.warnings).toHaveLength(1);
  });
});

describe('rowToStory', () => {
  it('gives the story as written, each sentence with the fact it states (plain text: as rendered)', () => {
    for (const task of [1, 2, 5] as const) {
      const p = generatePuzzle({ seed: `story:${task}`, k: 3, task });
      const text = renderPlain(p, 'train', createRng(p.seed, 'text'));
      const row = rowOf(p);
      const story = rowToStory(row, rowToPuzzle(row));
      expect(story.story).toBe(row.story);
      expect(story.sentences).toEqual(text.sentences);
      expect(story.cleanStory).toBe(text.cleanStory);
      expect(story.question).toBe(text.question);
      expect(story.textTarget).toBe(text.textTarget);
    }
  });

  it('keeps a written text_query and tolerates sentences that state no fact', () => {
    const p = generatePuzzle({ seed: 'story:q', k: 2, task: 1 });
    const row = { ...rowOf(p), textQuery: 'Who is [X] to [Y]?', story: `${rowOf(p).story} It rained.` };
    const story = rowToStory(row, rowToPuzzle(row));
    expect(story.question).toBe('Who is [X] to [Y]?');
    expect(story.sentences.at(-1)).toEqual({ text: 'It rained.', factIds: [] });
  });
});

describe('helpers', () => {
  it('parseTaskName and rowK', () => {
    expect(parseTaskName('task_2.3')).toEqual({ task: 2, k: 3 });
    expect(parseTaskName('1.10')).toEqual({ task: 1, k: 10 });
    expect(parseTaskName('task_x')).toBeUndefined();
    const row = rowOf(generatePuzzle({ seed: 'k', k: 4, task: 1 }));
    expect(rowK(row)).toBe(4);
    expect(rowK({ ...row, fComb: '' })).toBe(4);
    expect(rowK({ ...row, fComb: '', taskName: '' })).toBe(4);
  });

  it('storySentences splits on sentence ends', () => {
    expect(storySentences('[A] is here. [B] left!  Why? ok')).toEqual(['[A] is here.', '[B] left!', 'Why?', 'ok']);
  });
});
