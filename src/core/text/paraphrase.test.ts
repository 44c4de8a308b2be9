import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generatePuzzle, type Puzzle, type StoryFact } from '../puzzle/puzzle';
import type { TaskId } from '../puzzle/tasks';
import { createRng } from '../random/rng';
import { OUR_BANK } from './bank';
import { FEMALE_NAMES, MALE_NAMES } from '../family/names';
import { factChains, interleave, type StoryOrder } from './order';
import { type CombinationLength, createParaphraseRenderer, tidyFill, tidySentence } from './paraphrase';
import { createPlainRenderer } from './plain';
import type { RenderedStory, Split } from './render';
import { fillTemplate, splitBank, type TemplateBank, templatesFor } from './templates';

const puzzle = (seed: string | number, k: number, task: TaskId) => generatePuzzle({ seed, k, task });
const render = (
  p: Puzzle,
  cl: CombinationLength,
  split: Split = 'train',
  templateSplit?: { seed: number },
  storyOrder: StoryOrder = 'shuffled',
) =>
  createParaphraseRenderer({ bank: OUR_BANK, combinationLength: cl, templateSplit, storyOrder })(
    p,
    split,
    createRng(p.seed, 'text'),
  );

/** Problems with a rendered story; empty when it is clean. */
function storyProblems(p: Puzzle, r: RenderedStory, order: StoryOrder = 'shuffled'): string[] {
  const out: string[] = [];
  for (const [name, text] of [
    ['story', r.story],
    ['cleanStory', r.cleanStory],
    ['question', r.question],
    ['textTarget', r.textTarget],
  ] as const) {
    if (/ENT_/.test(text)) out.push(`${name} has an unfilled placeholder`);
    if (/\s{2}/.test(text)) out.push(`${name} has a double space`);
    if (/\s[.,;:!?]/.test(text)) out.push(`${name} has a space before punctuation`);
    if (/\.\./.test(text) || /,,/.test(text)) out.push(`${name} has doubled punctuation`);
    if (text !== text.trim()) out.push(`${name} has outer spaces`);
    if (/\[\]|\[\[|\]\]/.test(text)) out.push(`${name} has broken brackets`);
    for (const s of text.split(/(?<=[.!?])\s+/))
      if (!/^(\[[A-Z]|[A-Z])/.test(s)) out.push(`${name}: "${s}" does not start with a capital`);
    if (!/[.!?]$/.test(text)) out.push(`${name} does not end a sentence`);
  }
  for (const f of p.facts) {
    for (const e of [f.from, f.to]) {
      if (!r.story.includes(`[${p.entities[e]!.name}]`)) out.push(`story never names ${p.entities[e]!.name}`);
      if (f.kind === 'path' && !r.cleanStory.includes(`[${p.entities[e]!.name}]`)) {
        out.push(`clean story never names ${p.entities[e]!.name}`);
      }
    }
  }
  const ids = r.sentences.flatMap((s) => s.factIds).sort((a, b) => a - b);
  if (JSON.stringify(ids) !== JSON.stringify(p.facts.map((f) => f.id)))
    out.push(`fact ids ${ids} do not cover every fact once`);
  const pathOrder = r.sentences.flatMap((s) => s.factIds).filter((id) => p.facts[id]!.kind === 'path');
  if (order === 'path' && JSON.stringify(pathOrder) !== JSON.stringify([...Array(p.k).keys()]))
    out.push(`path facts out of order: ${pathOrder}`);
  // The clean story is the path's sentences, in the order the story tells them.
  const pathSentences = r.sentences.filter((s) => p.facts[s.factIds[0]!]!.kind === 'path');
  if (r.cleanStory !== pathSentences.map((s) => s.text).join(' ')) out.push('clean story is not the path sentences');
  const [a, b] = p.query.map((i) => `[${p.entities[i]!.name}]`);
  if (!r.question.includes(a!) || !r.question.includes(b!)) out.push('question misses a query name');
  if (!r.textTarget.includes(a!) || !r.textTarget.includes(b!) || !r.textTarget.includes(p.target.word)) {
    out.push('text target misses a name or the answer');
  }
  return out;
}

describe('storyProblems (the checker the properties rely on)', () => {
  it('catches placeholders, spacing, capitals, missing names and uncovered facts', () => {
    const p = puzzle('checker', 3, 3);
    const good = render(p, 3);
    expect(storyProblems(p, good)).toEqual([]);
    const bad = (story: string, sentences = good.sentences) =>
      storyProblems(p, { ...good, story, sentences }).join(' | ');
    expect(bad(`${good.story} ENT_0_male left.`)).toMatch(/unfilled placeholder/);
    expect(bad(good.story.replace(' ', '  '))).toMatch(/double space/);
    expect(bad(`${good.story} and then .`)).toMatch(/space before punctuation/);
    expect(bad(`${good.story} the end.`)).toMatch(/does not start with a capital/);
    expect(bad('Nobody.')).toMatch(/story never names/);
    expect(bad(good.story, good.sentences.slice(1))).toMatch(/do not cover every fact once/);
  });
});

describe('createParaphraseRenderer: properties over many seeds', () => {
  it('every story, k = 1..10, tasks 1–7, is clean, names everyone and covers every fact once', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 1, max: 10 }),
        fc.constantFrom<TaskId>(1, 2, 3, 4, 5, 6, 7),
        fc.constantFrom<CombinationLength>(1, 2, 3),
        fc.constantFrom<Split>('train', 'test'),
        fc.boolean(),
        fc.constantFrom<StoryOrder>('shuffled', 'path'),
        (seed, k, task, cl, split, held, order) => {
          const p = puzzle(seed, k, task);
          const r = render(p, cl, split, held ? { seed: 7 } : undefined, order);
          expect(storyProblems(p, r, order)).toEqual([]);
          for (const s of r.sentences) expect(s.factIds.length).toBeLessThanOrEqual(cl);
        },
      ),
      { numRuns: 600 },
    );
  });

  it('is deterministic in (puzzle, split, rng)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 1, max: 6 }), (seed, k) => {
        const p = puzzle(seed, k, 5);
        expect(render(p, 3)).toEqual(render(p, 3));
      }),
      { numRuns: 50 },
    );
  });

  it('each sentence of a paraphrase or plain sentence names exactly the entities of its facts', () => {
    for (let s = 0; s < 200; s++) {
      const p = puzzle(`names-${s}`, 1 + (s % 8), ((s % 7) + 1) as TaskId);
      for (const sentence of render(p, 3).sentences) {
        const named = new Set([...sentence.text.matchAll(/\[([^\]]+)\]/g)].map((m) => m[1]));
        const own = new Set(
          sentence.factIds.flatMap((id) => [p.facts[id]!.from, p.facts[id]!.to]).map((e) => p.entities[e]!.name),
        );
        expect(named).toEqual(own);
      }
    }
  });
});

describe('grouping', () => {
  it('with combination length 1 tells one fact per sentence', () => {
    const p = puzzle('g1', 6, 5);
    expect(render(p, 1).sentences.every((s) => s.factIds.length === 1)).toBe(true);
  });

  it('draws groupings at random, a single fact most often: about 1.1 facts per sentence, as released', () => {
    const lengths = [0, 0, 0, 0];
    let facts = 0;
    let sentences = 0;
    for (let s = 0; s < 400; s++) {
      const p = puzzle(`g-${s}`, 2 + (s % 5), 1);
      const r = render(p, 3);
      for (const x of r.sentences) lengths[x.factIds.length]!++;
      facts += p.facts.length;
      sentences += r.sentences.length;
      // A group of two or three facts is told with a paraphrase the bank has for it.
      for (const x of r.sentences.filter((y) => y.factIds.length > 1)) {
        const fs = x.factIds.map((id) => p.facts[id]!);
        expect(templateOf(p, OUR_BANK, fs, x.text)).toBeDefined();
      }
    }
    expect(lengths[1]).toBeGreaterThan(lengths[2]! + lengths[3]!);
    expect(lengths[2]).toBeGreaterThan(0);
    expect(lengths[3]).toBeGreaterThan(0);
    expect(facts / sentences).toBeGreaterThan(1.05);
    expect(facts / sentences).toBeLessThan(1.35);
  });

  it('the same seed gives the same grouping and order; other seeds give other orders', () => {
    const p = puzzle('order', 6, 5);
    const order = (seed: string) =>
      createParaphraseRenderer({ bank: OUR_BANK, combinationLength: 3 })(p, 'train', createRng(seed))
        .sentences.map((x) => x.factIds.join('+'))
        .join(' ');
    expect(order('a')).toBe(order('a'));
    const seen = new Set(Array.from({ length: 20 }, (_, i) => order(`s${i}`)));
    expect(seen.size).toBeGreaterThan(10);
  });

  it('shuffled order mixes path and noise and leaves the path out of order; path order keeps it', () => {
    let outOfOrder = 0;
    let firstIsPath0 = 0;
    for (let s = 0; s < 300; s++) {
      const p = puzzle(`mix-${s}`, 5, 5);
      const r = render(p, 1);
      const ids = r.sentences.map((x) => x.factIds[0]!);
      const path = ids.filter((id) => p.facts[id]!.kind === 'path');
      if (path.some((id, i) => i > 0 && id < path[i - 1]!)) outOfOrder++;
      if (ids[0] === 0) firstIsPath0++;
      const inPath = render(p, 1, 'train', undefined, 'path').sentences.map((x) => x.factIds[0]!);
      expect(inPath.filter((id) => p.facts[id]!.kind === 'path')).toEqual([0, 1, 2, 3, 4]);
    }
    expect(outOfOrder).toBeGreaterThan(250);
    expect(firstIsPath0).toBeLessThan(100);
  });

  it('falls back to plain sentences when the bank has nothing', () => {
    const p = puzzle('plain', 4, 3);
    const r = createParaphraseRenderer({ bank: {}, combinationLength: 3 })(p, 'train', createRng(1));
    expect(r.sentences).toHaveLength(p.facts.length);
    for (const s of r.sentences) {
      const f = p.facts[s.factIds[0]!]!;
      expect(s.text).toMatch(new RegExp(`\\b${f.word}\\b`));
    }
    expect(storyProblems(p, r)).toEqual([]);
  });

  it('tidies templates from a messy file', () => {
    expect(tidySentence('  ENT  met  him ,  twice ')).toBe('ENT met him, twice.');
    expect(tidySentence('[ann] waved!')).toBe('[ann] waved!');
    expect(tidySentence('they met;')).toBe('They met.');
    const p = puzzle('messy', 1, 1);
    const f = p.facts[0]!;
    const genders = [f.from, f.to].map((e) => p.entities[e]!.gender);
    const bank = { [f.word]: { [genders.join('-')]: [`ENT_0_${genders[0]}  knows ENT_1_${genders[1]} `] } };
    const r = createParaphraseRenderer({ bank, combinationLength: 1 })(p, 'train', createRng(1));
    expect(r.story).toBe(`[${p.entities[f.from]!.name}] knows [${p.entities[f.to]!.name}].`);
  });

  it('synthetic mode is the plain renderer, in either order', () => {
    const p = puzzle('synthetic', 4, 5);
    for (const storyOrder of ['shuffled', 'path'] as const) {
      const synthetic = createParaphraseRenderer({ bank: OUR_BANK, combinationLength: 3, synthetic: true, storyOrder });
      expect(synthetic(p, 'train', createRng(3))).toEqual(createPlainRenderer(storyOrder)(p, 'train', createRng(3)));
      const r = synthetic(p, 'train', createRng(3));
      expect(r.sentences).toHaveLength(p.facts.length);
      expect(storyProblems(p, r, storyOrder)).toEqual([]);
    }
  });

  it('rejects a combination length outside 1–3', () => {
    expect(() => createParaphraseRenderer({ bank: OUR_BANK, combinationLength: 4 as CombinationLength })).toThrow(
      /1, 2 or 3/,
    );
  });
});

/** Which template of `bank` produced a sentence (by filling each candidate), or undefined. */
function templateOf(p: Puzzle, bank: TemplateBank, facts: readonly StoryFact[], text: string): string | undefined {
  const entities = [facts[0]!.from, ...facts.map((f) => f.to)];
  const fComb = facts.map((f) => f.word).join('-');
  const genderComb = entities.map((e) => p.entities[e]!.gender).join('-');
  const names = entities.map((e) => `[${p.entities[e]!.name}]`);
  return templatesFor(bank, fComb, genderComb).find((t) => fillTemplate(t, names) === text);
}

describe('template split', () => {
  it('train rows use only the train half and test rows only the test half', () => {
    const halves = splitBank(OUR_BANK, 11);
    const seen = { train: 0, test: 0 };
    for (let s = 0; s < 150; s++) {
      const p = puzzle(`split-${s}`, 1 + (s % 5), ((s % 7) + 1) as TaskId);
      for (const split of ['train', 'test'] as const) {
        const r = render(p, (1 + (s % 3)) as CombinationLength, split, { seed: 11 });
        for (const sentence of r.sentences) {
          const facts = sentence.factIds.map((id) => p.facts[id]!);
          const used = templateOf(p, OUR_BANK, facts, sentence.text);
          if (used === undefined) continue; // a plain sentence: the half had no paraphrase
          expect(templateOf(p, halves[split], facts, sentence.text), sentence.text).toBe(used);
          expect(templateOf(p, halves[split === 'train' ? 'test' : 'train'], facts, sentence.text)).toBeUndefined();
          seen[split]++;
        }
      }
    }
    expect(seen.train).toBeGreaterThan(100);
    expect(seen.test).toBeGreaterThan(100);
  });

  it('accepts explicit halves', () => {
    const halves = splitBank(OUR_BANK, 2);
    const p = puzzle('halves', 3, 1);
    const a = createParaphraseRenderer({ bank: OUR_BANK, combinationLength: 2, templateSplit: { seed: 2 } })(
      p,
      'test',
      createRng(1),
    );
    const b = createParaphraseRenderer({ bank: OUR_BANK, combinationLength: 2, templateSplit: halves })(
      p,
      'test',
      createRng(1),
    );
    expect(b).toEqual(a);
  });
});

describe('factChains and interleave', () => {
  it('splits facts into connected chains of one kind; a memory fact stands alone', () => {
    for (let s = 0; s < 100; s++) {
      const p = puzzle(`chains-${s}`, 2 + (s % 6), (s % 2 ? 5 : 6) as TaskId);
      const chains = factChains(p);
      expect(chains.flat().map((f) => f.id)).toEqual(p.facts.map((f) => f.id));
      expect(chains[0]!.map((f) => f.kind)).toEqual(Array(p.k).fill('path'));
      for (const c of chains) {
        for (let i = 1; i < c.length; i++) {
          expect(c[i]!.from).toBe(c[i - 1]!.to);
          expect(c[i]!.kind).toBe(c[0]!.kind);
        }
        if (c[0]!.kind === 'memory') expect(c).toHaveLength(1);
      }
    }
  });

  it('interleave keeps the order within each list', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.integer(), { maxLength: 5 }), { maxLength: 5 }), fc.integer(), (lists, seed) => {
        const tagged = lists.map((l, i) => l.map((_, j) => `${i}:${j}`));
        const out = interleave(tagged, createRng(seed));
        expect(out.length).toBe(tagged.flat().length);
        for (const [i, l] of tagged.entries()) expect(out.filter((x) => x.startsWith(`${i}:`))).toEqual(l);
      }),
    );
  });
});

describe('tidyFill (templates tidied once, then filled)', () => {
  it('equals tidying the filled sentence, for every template of our bank and every name in the pool', () => {
    const names = [...MALE_NAMES, ...FEMALE_NAMES].map((n) => `[${n}]`);
    const rng = createRng('tidy-fill');
    let checked = 0;
    for (const byGender of Object.values(OUR_BANK)) {
      for (const list of Object.values(byGender)) {
        for (const t of list) {
          const picked = Array.from({ length: 4 }, () => rng.pick(names));
          expect(tidyFill(t, picked)).toBe(tidySentence(fillTemplate(t, picked)));
          checked++;
        }
      }
    }
    for (const name of names) {
      const t = 'ENT_0_male  waved at ENT_1_female , then left';
      expect(tidyFill(t, [name, name])).toBe(tidySentence(fillTemplate(t, [name, name])));
    }
    expect(checked).toBe(1462);
  });
});
