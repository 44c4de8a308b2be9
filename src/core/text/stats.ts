import { PLACEHOLDER_RE, splitFComb, type TemplateBank } from './templates';

/**
 * The words of a template, for vocabulary and overlap statistics. Rule: placeholders
 * (`ENT_<i>_<gender>`) are deleted, the text is lowercased, and a word is a maximal run of the
 * letters a–z; everything else separates words, so `father's` gives `father` and `s`, and
 * `son-in-law` gives `son`, `in`, `law`.
 */
export function templateWords(template: string): string[] {
  return (
    template
      .replace(PLACEHOLDER_RE, ' ')
      .toLowerCase()
      .match(/[a-z]+/g) ?? []
  );
}

/** Jaccard overlap |A ∩ B| / |A ∪ B| of two sets (0 when both are empty). */
export function jaccard<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}

const bigrams = (words: readonly string[]): Set<string> => {
  const out = new Set<string>();
  for (let i = 0; i + 1 < words.length; i++) out.add(`${words[i]} ${words[i + 1]}`);
  return out;
};

export interface KeyStats {
  /** Number of keys (f_combs) with at least one template. */
  readonly keys: number;
  readonly paraphrases: number;
  /** Distinct words (see templateWords). */
  readonly words: number;
  /** Keys with two or more paraphrases (the ones the overlaps average over). */
  readonly keysWithPairs: number;
  /** Mean over keys of the mean pairwise unigram Jaccard overlap within the key. */
  readonly jaccard1: number;
  /** The same for bigram sets. */
  readonly jaccard2: number;
}

export interface TemplateStats {
  /** By key size: 1, 2 and 3 facts (larger keys, if a file has any, are counted in `total` only). */
  readonly bySize: Readonly<Record<1 | 2 | 3, KeyStats>>;
  readonly total: KeyStats;
}

interface KeyData {
  readonly size: number;
  readonly templates: readonly string[];
}

function summarise(keys: readonly KeyData[]): KeyStats {
  const vocab = new Set<string>();
  let paraphrases = 0;
  let sum1 = 0;
  let sum2 = 0;
  let withPairs = 0;
  for (const k of keys) {
    paraphrases += k.templates.length;
    const words = k.templates.map(templateWords);
    for (const ws of words) for (const w of ws) vocab.add(w);
    if (k.templates.length < 2) continue;
    const uni = words.map((ws) => new Set(ws));
    const bi = words.map(bigrams);
    let s1 = 0;
    let s2 = 0;
    let pairs = 0;
    for (let i = 0; i < uni.length; i++) {
      for (let j = i + 1; j < uni.length; j++) {
        s1 += jaccard(uni[i]!, uni[j]!);
        s2 += jaccard(bi[i]!, bi[j]!);
        pairs++;
      }
    }
    sum1 += s1 / pairs;
    sum2 += s2 / pairs;
    withPairs++;
  }
  return {
    keys: keys.length,
    paraphrases,
    words: vocab.size,
    keysWithPairs: withPairs,
    jaccard1: withPairs ? sum1 / withPairs : 0,
    jaccard2: withPairs ? sum2 / withPairs : 0,
  };
}

/**
 * Size and overlap of groups of templates (or stories with their names removed), each group
 * one clause: the statistics templateStats computes per key size, for any grouping.
 */
export function groupStats(groups: readonly (readonly string[])[]): KeyStats {
  return summarise(groups.filter((g) => g.length > 0).map((templates) => ({ size: 0, templates })));
}

/**
 * Size and diversity of a bank. A key is an f_comb; its paraphrases are pooled over its gender
 * combs (so a template copied with only the pronouns changed counts as overlap, as it should).
 * Overlap is the mean pairwise Jaccard overlap of word sets within a key, averaged over keys
 * with two or more paraphrases.
 */
export function templateStats(bank: TemplateBank): TemplateStats {
  const keys: KeyData[] = Object.entries(bank)
    .map(([fComb, byGender]) => {
      const s = splitFComb(fComb);
      const size = 'words' in s ? s.words.length : fComb.split('-').length;
      return { size, templates: Object.values(byGender).flat() };
    })
    .filter((k) => k.templates.length > 0);
  return {
    bySize: {
      1: summarise(keys.filter((k) => k.size === 1)),
      2: summarise(keys.filter((k) => k.size === 2)),
      3: summarise(keys.filter((k) => k.size === 3)),
    },
    total: summarise(keys),
  };
}

/**
 * The stats as text: a table by key size, then as the very last line
 * `keys1=… keys2=… keys3=… paraphrases=… words=… jaccard1=x.xxx jaccard2=x.xxx`.
 */
export function formatTemplateStats(stats: TemplateStats): string {
  const rows = ([1, 2, 3] as const).map((n) => {
    const s = stats.bySize[n];
    return [`${n}`, `${s.keys}`, `${s.paraphrases}`, `${s.words}`, s.jaccard1.toFixed(3), s.jaccard2.toFixed(3)];
  });
  const t = stats.total;
  rows.push(['all', `${t.keys}`, `${t.paraphrases}`, `${t.words}`, t.jaccard1.toFixed(3), t.jaccard2.toFixed(3)]);
  const head = ['facts', 'keys', 'paraphrases', 'words', 'jaccard1', 'jaccard2'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => c.padStart(widths[i]!)).join('  ');
  const b = stats.bySize;
  return [
    line(head),
    ...rows.map(line),
    `keys1=${b[1].keys} keys2=${b[2].keys} keys3=${b[3].keys} paraphrases=${t.paraphrases} words=${t.words} jaccard1=${t.jaccard1.toFixed(3)} jaccard2=${t.jaccard2.toFixed(3)}`,
  ].join('\n');
}
