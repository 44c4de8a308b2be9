/**
 * The little Markdown the study texts use (consent, instructions, completion): paragraphs,
 * `#` headings, `-`/`*` and `1.` lists, **bold**, *italic* and [links](https://…). Parsed into
 * plain data and drawn by React: no HTML from a link is ever put into the page as HTML.
 */

export type Inline =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'strong' | 'em'; readonly text: string }
  | { readonly kind: 'link'; readonly text: string; readonly href: string };

export type Block =
  | { readonly kind: 'heading'; readonly level: 2 | 3 | 4; readonly content: Inline[] }
  | { readonly kind: 'paragraph'; readonly content: Inline[] }
  | { readonly kind: 'list'; readonly ordered: boolean; readonly items: Inline[][] };

const INLINE = /\*\*([^*]+)\*\*|\*([^*]+)\*|_([^_]+)_|\[([^\]]+)\]\(([^)\s]+)\)/g;

/** Inline marks of one line; a link is kept only for http(s) and mailto addresses. */
export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let at = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > at) out.push({ kind: 'text', text: text.slice(at, m.index) });
    if (m[1] !== undefined) out.push({ kind: 'strong', text: m[1] });
    else if (m[2] !== undefined || m[3] !== undefined) out.push({ kind: 'em', text: (m[2] ?? m[3])! });
    else if (/^(https?:|mailto:)/i.test(m[5]!)) out.push({ kind: 'link', text: m[4]!, href: m[5]! });
    else out.push({ kind: 'text', text: m[4]! });
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push({ kind: 'text', text: text.slice(at) });
  return out;
}

/** Blocks of a Markdown text: blank lines separate paragraphs; consecutive list lines form one list. */
export function parseMarkdown(text: string): Block[] {
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  let list: { ordered: boolean; items: Inline[][] } | null = null;
  const flush = () => {
    if (paragraph.length > 0) blocks.push({ kind: 'paragraph', content: parseInline(paragraph.join(' ')) });
    paragraph = [];
    if (list) blocks.push({ kind: 'list', ...list });
    list = null;
  };
  for (const raw of text.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.trim();
    const heading = /^(#{1,3})\s+(.*)$/.exec(line);
    const bullet = /^[-*]\s+(.*)$/.exec(line);
    const numbered = /^\d+[.)]\s+(.*)$/.exec(line);
    if (line === '') flush();
    else if (heading) {
      flush();
      blocks.push({ kind: 'heading', level: (heading[1]!.length + 1) as 2 | 3 | 4, content: parseInline(heading[2]!) });
    } else if (bullet || numbered) {
      const ordered = !bullet;
      if (paragraph.length > 0 || (list && list.ordered !== ordered)) flush();
      list ??= { ordered, items: [] };
      list.items.push(parseInline((bullet ?? numbered)![1]!));
    } else {
      if (list) flush();
      paragraph.push(line);
    }
  }
  flush();
  return blocks;
}
