import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/random/rng';
import {
  assignEntities,
  CONTINUATION,
  entityToken,
  FIRST_WORD_ID,
  FIXED_TOKENS,
  learnMerges,
  learnTokenizer,
  MAX_ENTITIES,
  normaliseText,
  storyParts,
  TextTokenizer,
  tokenizerProblem,
  UNK_ID,
  UNK_TOKEN,
} from './tokens';

const TRAINING = [
  '[Ann] went shopping with her granddaughter [Bob]. [Bob] called his grandmother [Cara].',
  "[Dan] is [Eve]'s father-in-law. [Eve] and her daughter [Fay] went shopping.",
  '[Gus] took his grandson [Hal] fishing. [Hal] likes fishing with his grandfather.',
  '[Ivy] and her mother [Jo] went shopping for a dress. [Jo] has a granddaughter.',
];
const tokens = learnTokenizer(TRAINING, { minWordCount: 2, maxMerges: 60 });
const words = (story: string) => tokens.encode(story, 1).ids.map((id) => tokens.vocabulary[id]!);

describe('normalising and splitting', () => {
  it('lower-cases, drops accents, reads curly apostrophes and dashes as plain ones', () => {
    expect(normaliseText('Café ZOË’s Step–Mother')).toBe("cafe zoe's step-mother");
  });

  it('names stay as written; words and punctuation marks are parts', () => {
    expect(storyParts('[Ann-Marie] is [Bob]’s Half-Sister!')).toEqual([
      { kind: 'name', text: 'Ann-Marie' },
      { kind: 'word', text: 'is' },
      { kind: 'name', text: 'Bob' },
      { kind: 'punct', text: "'" },
      { kind: 'word', text: 's' },
      { kind: 'word', text: 'half' },
      { kind: 'punct', text: '-' },
      { kind: 'word', text: 'sister' },
      { kind: 'punct', text: '!' },
    ]);
  });

  it('entity tokens: a seeded permutation, the same for the same seed, reused past MAX_ENTITIES', () => {
    const names = Array.from({ length: MAX_ENTITIES + 2 }, (_, i) => `P${i}`);
    const a = assignEntities(names, 3);
    expect(assignEntities(names, 3)).toEqual(a);
    expect(new Set([...a.values()].slice(0, MAX_ENTITIES)).size).toBe(MAX_ENTITIES);
    expect(a.get(`P${MAX_ENTITIES}`)).toBe(a.get('P0'));
    const firsts = new Set(Array.from({ length: 30 }, (_, s) => assignEntities(['X'], s).get('X')));
    expect(firsts.size).toBeGreaterThan(8);
  });
});

describe('learning the pieces', () => {
  it('byte-pair merges take the most frequent pair first, ties by text, with ## on continuing symbols', () => {
    const merges = learnMerges(
      new Map([
        ['abab', 3],
        ['abc', 1],
      ]),
      3,
    );
    // Pairs: "a ##b" 7, "##b ##a" 3, "##b ##c" 1 → ab; then "ab ##ab" 3; then nothing occurs twice.
    expect(merges).toEqual(['ab', '##ab', 'abab']);
    expect(learnMerges(new Map([['xy', 1]]), 5)).toEqual([]);
  });

  it('the vocabulary: fixed head, punctuation, frequent words, every character twice, merged pieces', () => {
    const v = tokens.vocabulary;
    expect(v.slice(0, FIXED_TOKENS.length)).toEqual(FIXED_TOKENS);
    expect(v).toContain('.');
    expect(v).toContain('shopping');
    expect(v).not.toContain('dress'); // seen once
    for (const c of 'acdefghiklmnoprstuw') {
      expect(v).toContain(c);
      expect(v).toContain(CONTINUATION + c);
    }
    expect(new Set(v).size).toBe(v.length);
    expect(tokenizerProblem(tokens.toJson())).toBeUndefined();
  });

  it('the same stories always give the same vocabulary', () => {
    expect(learnTokenizer([...TRAINING], { minWordCount: 2, maxMerges: 60 }).vocabulary).toEqual(tokens.vocabulary);
  });
});

describe('encoding', () => {
  it('an unseen word becomes known pieces, never an error; the pieces spell the word', () => {
    for (const word of ['grandpa', 'granddad', 'stepdaughter', 'fished', 'shopper']) {
      const pieces = tokens.pieces(word);
      expect(pieces.length).toBeGreaterThan(1);
      expect(pieces).not.toContain(UNK_TOKEN);
      expect(pieces.map((p, i) => (i === 0 ? p : p.slice(CONTINUATION.length))).join('')).toBe(word);
      pieces.slice(1).forEach((p) => expect(p.startsWith(CONTINUATION)).toBe(true));
      pieces.forEach((p) => expect(tokens.vocabulary).toContain(p));
    }
    expect(tokens.pieces('grand')[0]).toBe('grand');
  });

  it('a known word is itself; a character no training word had is <unk>, and the rest still comes apart', () => {
    expect(tokens.pieces('shopping')).toEqual(['shopping']);
    const pieces = tokens.pieces('zhopping');
    expect(pieces[0]).toBe(UNK_TOKEN);
    expect(pieces.slice(1).join('')).not.toContain(UNK_TOKEN);
    expect(tokens.encode('[A] ☃ [B]', 1).ids[1]).toBe(UNK_ID);
  });

  it('same input, same ids; a new seed changes only the entity tokens', () => {
    const story = '[Kim] phoned her GRAND-Dad [Lou] at noon. [Lou] has a granddaughter, [Mo].';
    const first = tokens.encode(story, 'q', ['Kim', 'Mo']);
    expect(tokens.encode(story, 'q', ['Kim', 'Mo'])).toEqual(first);
    const other = tokens.encode(story, 'another seed', ['Kim', 'Mo']);
    expect(other.ids.length).toBe(first.ids.length);
    other.ids.forEach((id, i) => {
      if (id >= FIRST_WORD_ID || first.ids[i]! >= FIRST_WORD_ID) expect(id).toBe(first.ids[i]);
    });
    expect([...first.entities.values()].every((id) => id >= 2 && id < FIRST_WORD_ID)).toBe(true);
    const text = words(story);
    // The comma is the one thing training never had.
    expect(text.filter((t) => t === UNK_TOKEN)).toHaveLength(1);
    expect(text[text.indexOf(UNK_TOKEN) - 1]).toBe('granddaughter');
    expect(text.slice(1, 6)).toEqual([...tokens.pieces('phoned'), 'her', 'grand', '-'].slice(0, 5));
  });

  it('sentences are counted, a new one after . ! or ?', () => {
    const e = tokens.encode('[A] went shopping. [B] went fishing! [A]?', 1);
    expect(e.sentence).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 2, 2]);
    // "..." and "?!" end one sentence; no sentence is empty.
    const dots = tokens.encode('[A] went... [B] went fishing?! [A] went.', 1);
    expect(dots.sentence).toEqual([0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2]);
    const legacy = new TextTokenizer({ kind: 'words', vocabulary: [...FIXED_TOKENS, 'went'] });
    expect(legacy.encode('[A] went... [B] went.', 1).sentence).toEqual([0, 0, 0, 0, 0, 1, 1, 1]);
  });

  it('training dropout: words become <unk> or their pieces, entities and punctuation never change', () => {
    const story = '[Ann] went shopping with her granddaughter [Bob].';
    const clean = tokens.encode(story, 5);
    const allUnk = tokens.encode(story, 5, [], { unknown: 1, pieces: 0, rng: createRng(1) });
    expect(allUnk.ids.map((id, i) => (id === UNK_ID ? 'unk' : id === clean.ids[i] ? 'same' : 'other'))).toEqual([
      'same',
      'unk',
      'unk',
      'unk',
      'unk',
      'unk',
      'same',
      'same',
    ]);
    const split = tokens.encode(story, 5, [], { unknown: 0, pieces: 1, rng: createRng(1) });
    const text = split.ids.map((id) => tokens.vocabulary[id]!);
    expect(text).not.toContain('shopping');
    expect(text).not.toContain(UNK_TOKEN);
    expect(text.filter((t) => t.startsWith(CONTINUATION)).length).toBeGreaterThan(3);
    const spelled = text.map((t) => (t.startsWith(CONTINUATION) ? t.slice(CONTINUATION.length) : ` ${t}`)).join('');
    expect(spelled.replace(/@ent\d+/g, 'X')).toBe(' X went shopping with her granddaughter X .');
  });

  it('the words kind reads a model trained before tokens.ts as it did: whole words, unknown ones <unk>', () => {
    const vocabulary = [...FIXED_TOKENS, '.', 'is', 'the', 'son-in-law', 'of'];
    const words = new TextTokenizer({ kind: 'words', vocabulary });
    const e = words.encode('[Al] is the Son-in-law of [Bo]. [Bo] is nice.', 2, ['Al', 'Bo']);
    expect(e.ids.slice(1, 5)).toEqual([27, 28, 29, 30]);
    expect(e.ids[e.ids.length - 2]).toBe(UNK_ID);
    expect(e.entities.get('Al')).toBe(vocabulary.indexOf(assignEntities(['Al', 'Bo'], 2).get('Al')!));
  });

  it('refuses a tokenizer it cannot use, naming the problem', () => {
    expect(tokenizerProblem({ kind: 'bpe', vocabulary: [] })).toMatch(/unknown kind "bpe"/);
    expect(tokenizerProblem({ kind: 'pieces', vocabulary: ['a'] })).toMatch(/must start with <pad>/);
    expect(tokenizerProblem({ kind: 'pieces', vocabulary: [...FIXED_TOKENS, 'a', 'a'] })).toMatch(/repeats/);
    expect(() => new TextTokenizer({ kind: 'pieces', version: 1, vocabulary: [entityToken(0)] })).toThrow(
      /tokenizer: vocabulary must start/,
    );
  });
});
