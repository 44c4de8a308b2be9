import { describe, expect, it } from 'vitest';
import { parseInline, parseMarkdown } from './markdown';

describe('parseMarkdown', () => {
  it('splits paragraphs at blank lines and joins wrapped lines', () => {
    expect(parseMarkdown('One\ntwo.\n\nThree.')).toEqual([
      { kind: 'paragraph', content: [{ kind: 'text', text: 'One two.' }] },
      { kind: 'paragraph', content: [{ kind: 'text', text: 'Three.' }] },
    ]);
  });
  it('reads headings and lists', () => {
    const blocks = parseMarkdown('# Consent\n- first\n- second\n\n1. a\n2. b');
    expect(blocks.map((b) => b.kind)).toEqual(['heading', 'list', 'list']);
    expect(blocks[1]).toMatchObject({ ordered: false, items: [[{ text: 'first' }], [{ text: 'second' }]] });
    expect(blocks[2]).toMatchObject({ ordered: true });
  });
});

describe('parseInline', () => {
  it('marks bold, italic and http links', () => {
    expect(parseInline('a **b** *c* [d](https://x.org) e')).toEqual([
      { kind: 'text', text: 'a ' },
      { kind: 'strong', text: 'b' },
      { kind: 'text', text: ' ' },
      { kind: 'em', text: 'c' },
      { kind: 'text', text: ' ' },
      { kind: 'link', text: 'd', href: 'https://x.org' },
      { kind: 'text', text: ' e' },
    ]);
  });
  it('keeps a javascript: link as text only', () => {
    expect(parseInline('[x](javascript:alert(1))')).toEqual([
      { kind: 'text', text: 'x' },
      { kind: 'text', text: ')' },
    ]);
  });
});
