import { type Gender, GENDERS, parseWord, type RelationWord, WORD_ALIASES } from '../kinship/relations';
import { createRng, type Seed } from '../random/rng';

/**
 * Paraphrase template banks in the original CLUTRR shape:
 * `{ f_comb: { gender_comb: [template, ...] } }`.
 *
 * - `f_comb` is the relation words of 1–3 consecutive facts joined by `-` (`father-sister`);
 *   the original's `neice` is accepted and stored as `niece`.
 * - `gender_comb` is the genders of the distinct entities in order of first appearance, joined
 *   by `-`. Consecutive facts form a chain `e0 → e1 → e2 …`, so a key of n facts has n + 1
 *   entities, and the gender of entity i+1 is the one the i-th relation word implies.
 * - Templates name entity i as `ENT_<i>_<gender>`.
 */
export type TemplateBank = {
  readonly [fComb: string]: { readonly [genderComb: string]: readonly string[] };
};

/** The explicit halves of a template split (e.g. the original `.train.json` / `.test.json`). */
export interface BankHalves {
  readonly train: TemplateBank;
  readonly test: TemplateBank;
}

/** What is wrong with one part of a template file; `index` is the template's position in its list. */
export interface TemplateProblem {
  /** The file, when the problem comes from reading one (templateFile.ts). */
  readonly file?: string;
  readonly fComb?: string;
  readonly genderComb?: string;
  readonly index?: number;
  readonly message: string;
}

/** A template file of the wrong shape; the message names the file, key and template. */
export class TemplateFormatError extends Error {
  override name = 'TemplateFormatError';
  constructor(
    message: string,
    readonly problems: readonly TemplateProblem[],
  ) {
    super(message);
  }
}

/** `ENT_<index>_<gender>`; the global flag makes it usable with matchAll / replace. */
export const PLACEHOLDER_RE = /ENT_(\d+)_([a-z]+)/g;

export interface Placeholder {
  readonly index: number;
  readonly gender: string;
  /** Offset of the placeholder in the template. */
  readonly at: number;
  readonly text: string;
}

/** The placeholders of a template, in order of appearance. */
export function placeholdersOf(template: string): Placeholder[] {
  return [...template.matchAll(PLACEHOLDER_RE)].map((m) => ({
    index: Number(m[1]),
    gender: m[2]!,
    at: m.index,
    text: m[0],
  }));
}

/**
 * Splits an f_comb into relation words, keeping the hyphenated in-law words whole and
 * normalising aliases (`neice` → `niece`). Returns the first unknown word when there is one.
 */
export function splitFComb(fComb: string): { words: RelationWord[] } | { unknown: string } {
  const parts = fComb.split('-');
  const words: RelationWord[] = [];
  for (let i = 0; i < parts.length; i++) {
    let w = parts[i]!;
    if (parts[i + 1] === 'in' && parts[i + 2] === 'law') {
      w = `${w}-in-law`;
      i += 2;
    }
    const normal = WORD_ALIASES[w] ?? w;
    if (!parseWord(normal)) return { unknown: w };
    words.push(normal as RelationWord);
  }
  return { words };
}

/** The key of a run of relation words, in our spelling. */
export const fCombOf = (words: readonly string[]): string => words.map((w) => WORD_ALIASES[w] ?? w).join('-');

/**
 * The genders of a chain's entities for a run of relation words and the first entity's gender:
 * entity i+1 has the gender that word i implies.
 */
export function chainGenders(words: readonly RelationWord[], first: Gender): Gender[] {
  return [first, ...words.map((w) => parseWord(w)!.gender)];
}

const isGender = (g: string): g is Gender => (GENDERS as readonly string[]).includes(g);

/** Templates for a key, or an empty list. Safe against keys such as `constructor`. */
export function templatesFor(bank: TemplateBank, fComb: string, genderComb: string): readonly string[] {
  if (!Object.hasOwn(bank, fComb)) return [];
  const byGender = bank[fComb]!;
  return Object.hasOwn(byGender, genderComb) ? byGender[genderComb]! : [];
}

/**
 * Replaces each `ENT_<i>_<gender>` by `names[i]` (already bracketed by the caller if wanted).
 * Throws when a placeholder's index has no name.
 */
export function fillTemplate(template: string, names: readonly string[]): string {
  return template.replace(PLACEHOLDER_RE, (ph: string, i: string) => {
    const name = names[Number(i)];
    if (name === undefined) throw new RangeError(`template placeholder ${ph} has no entity`);
    return name;
  });
}

/** PLACEHOLDER_RE for templateShapeFine's exec loop alone (a global regex keeps a position). */
const SHAPE_RE = new RegExp(PLACEHOLDER_RE.source, 'g');
/** Text that starts like a placeholder but is not one (both shape checks). */
const STRAY_RE = /ENT_(?!\d+_[a-z]+)\S*/;

/**
 * Whether templateShapeProblems finds nothing wrong, without building its messages: every
 * template of a bank is checked when the bank loads (ours at every start, in every thread),
 * and almost all are fine.
 */
export function templateShapeFine(template: string, genders: readonly Gender[]): boolean {
  const n = genders.length;
  if (n > 30) return templateShapeProblems(template, genders).length === 0;
  let seen = 0;
  SHAPE_RE.lastIndex = 0;
  for (let m = SHAPE_RE.exec(template); m !== null; m = SHAPE_RE.exec(template)) {
    const index = Number(m[1]);
    if (!(index < n) || genders[index] !== m[2]) return false;
    seen |= 1 << index;
  }
  return seen === (1 << n) - 1 && !STRAY_RE.test(template) && template.trim() !== '';
}

/** Checks one template against its key; returns what is wrong (empty when it is fine). */
export function templateShapeProblems(template: string, genders: readonly Gender[]): string[] {
  const problems: string[] = [];
  const seen = new Set<number>();
  for (const p of placeholdersOf(template)) {
    if (!isGender(p.gender)) {
      problems.push(`placeholder ${p.text} has gender "${p.gender}" (expected male or female)`);
      continue;
    }
    if (p.index >= genders.length) {
      problems.push(
        `placeholder ${p.text} names entity ${p.index}, but the key has only ${genders.length} entities (0–${genders.length - 1})`,
      );
      continue;
    }
    if (genders[p.index] !== p.gender) {
      problems.push(
        `placeholder ${p.text} says ${p.gender}, but the gender comb makes entity ${p.index} ${genders[p.index]}`,
      );
    }
    seen.add(p.index);
  }
  const stray = STRAY_RE.exec(template);
  if (stray) problems.push(`"${stray[0]}" is not a placeholder of the form ENT_<i>_<gender>`);
  const missing = genders.map((_, i) => i).filter((i) => !seen.has(i));
  if (missing.length > 0) {
    problems.push(`never names ${missing.map((i) => `ENT_${i}_${genders[i]}`).join(', ')}`);
  }
  if (template.trim() === '') problems.push('is empty');
  return problems;
}

/**
 * One problem as a line: `file: key "k", gender comb "g", template i: message`. `fileName`
 * is used when the problem does not name its own file.
 */
export function describeProblem(fileName: string | undefined, p: TemplateProblem): string {
  const where: string[] = [];
  if (p.fComb !== undefined) where.push(`key "${p.fComb}"`);
  if (p.genderComb !== undefined) where.push(`gender comb "${p.genderComb}"`);
  if (p.index !== undefined) where.push(`template ${p.index}`);
  const prefix = [p.file ?? fileName, where.join(', ')].filter((s) => s).join(': ');
  return prefix ? `${prefix}: ${p.message}` : p.message;
}

/**
 * The strict answer to a list of problems: nothing when it is empty, otherwise a
 * TemplateFormatError describing the first problem and counting the rest.
 */
export function refuseProblems(problems: readonly TemplateProblem[], fileName?: string): void {
  if (problems.length === 0) return;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})` : '';
  throw new TemplateFormatError(describeProblem(fileName, problems[0]!) + more, problems);
}

/** How often validation reports progress, in templates. */
const PROGRESS_EVERY = 4096;

/** Templates in parsed data of the bank's shape, counted without checking them (for progress). */
function countTemplates(data: object): number {
  let n = 0;
  for (const byGender of Object.values(data)) {
    if (typeof byGender !== 'object' || byGender === null) continue;
    for (const list of Object.values(byGender as object)) if (Array.isArray(list)) n += list.length;
  }
  return n;
}

/**
 * Validates parsed JSON as a template bank. Every problem is reported (key, gender comb and
 * template index); the returned bank holds only the valid parts, with `neice` normalised,
 * templates deduplicated within each list (`neice` and `niece` lists merge into one), and empty
 * lists dropped. Linear in the number of templates; `onProgress(done, total)` counts templates.
 */
export function validateTemplateData(
  data: unknown,
  options: { onProgress?: (done: number, total: number) => void } = {},
): { bank: TemplateBank; problems: TemplateProblem[] } {
  const problems: TemplateProblem[] = [];
  const bank: Record<string, Record<string, string[]>> = {};
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    problems.push({
      message: `expected an object {f_comb: {gender_comb: [template, ...]}} at the top level, got ${kindOf(data)}`,
    });
    return { bank, problems };
  }
  const { onProgress } = options;
  const total = onProgress ? countTemplates(data) : 0;
  let done = 0;
  // One set per output list: a list can be fed by two keys (`neice` and `niece`), and
  // Array#includes made the check quadratic in the list's length.
  const seen = new Map<string[], Set<string>>();
  for (const [fCombRaw, byGender] of Object.entries(data)) {
    const split = splitFComb(fCombRaw);
    if ('unknown' in split) {
      problems.push({ fComb: fCombRaw, message: `"${split.unknown}" is not a relation word` });
      continue;
    }
    if (typeof byGender !== 'object' || byGender === null || Array.isArray(byGender)) {
      problems.push({
        fComb: fCombRaw,
        message: `expected an object {gender_comb: [template, ...]}, got ${kindOf(byGender)}`,
      });
      continue;
    }
    const words = split.words;
    const fComb = fCombOf(words);
    for (const [genderComb, list] of Object.entries(byGender as Record<string, unknown>)) {
      const genders = genderComb.split('-');
      const at = { fComb: fCombRaw, genderComb };
      if (genders.length !== words.length + 1) {
        problems.push({
          ...at,
          message: `a key of ${words.length} fact${words.length > 1 ? 's' : ''} has ${words.length + 1} entities, but the gender comb lists ${genders.length}`,
        });
        continue;
      }
      const bad = genders.find((g) => !isGender(g));
      if (bad !== undefined) {
        problems.push({ ...at, message: `"${bad}" is not a gender (expected male or female)` });
        continue;
      }
      const implied = chainGenders(words, genders[0] as Gender);
      const clash = implied.findIndex((g, i) => g !== genders[i]);
      if (clash >= 0) {
        problems.push({
          ...at,
          message: `"${words[clash - 1]}" makes entity ${clash} ${implied[clash]}, but the gender comb says ${genders[clash]}`,
        });
        continue;
      }
      if (!Array.isArray(list)) {
        problems.push({ ...at, message: `expected a list of templates, got ${kindOf(list)}` });
        continue;
      }
      const entry = (bank[fComb] ??= {});
      const kept = (entry[genderComb] ??= []);
      let unique = seen.get(kept);
      if (!unique) seen.set(kept, (unique = new Set(kept)));
      list.forEach((t: unknown, index) => {
        if (onProgress && ++done % PROGRESS_EVERY === 0) onProgress(done, total);
        if (typeof t !== 'string') {
          problems.push({ ...at, index, message: `expected a string, got ${kindOf(t)}` });
          return;
        }
        const wrong = templateShapeFine(t, implied) ? [] : templateShapeProblems(t, implied);
        if (wrong.length > 0) {
          problems.push({ ...at, index, message: `${wrong.join('; ')} (in "${t}")` });
          return;
        }
        if (!unique.has(t)) {
          unique.add(t);
          kept.push(t);
        }
      });
      if (kept.length === 0) delete entry[genderComb];
      if (Object.keys(entry).length === 0) delete bank[fComb];
    }
  }
  onProgress?.(total, total);
  return { bank, problems };
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/**
 * Strict validation of data that is already parsed (e.g. a JSON module import): the bank, or a
 * TemplateFormatError naming the file, key, gender comb and template index of the first problem.
 * For template files as text, see templateFile.ts.
 */
export function parseTemplateData(data: unknown, fileName?: string): TemplateBank {
  const { bank, problems } = validateTemplateData(data);
  refuseProblems(problems, fileName);
  return bank;
}

/** The union of banks (e.g. the `.train.json` and `.test.json` halves), deduplicated per list. */
export function mergeBanks(...banks: readonly TemplateBank[]): TemplateBank {
  const out: Record<string, Record<string, string[]>> = {};
  const seen = new Map<string[], Set<string>>();
  for (const bank of banks) {
    for (const [fComb, byGender] of Object.entries(bank)) {
      const entry = (out[fComb] ??= {});
      for (const [g, list] of Object.entries(byGender)) {
        const into = (entry[g] ??= []);
        let unique = seen.get(into);
        if (!unique) seen.set(into, (unique = new Set()));
        for (const t of list) {
          if (unique.has(t)) continue;
          unique.add(t);
          into.push(t);
        }
      }
    }
  }
  return out;
}

/** Number of templates in a bank. */
export function bankSize(bank: TemplateBank): number {
  let n = 0;
  for (const byGender of Object.values(bank)) for (const list of Object.values(byGender)) n += list.length;
  return n;
}

/** The share of each list that goes to training in a template split. */
export const TRAIN_SHARE = 0.8;

/**
 * The seeded, stratified template split: every (f_comb, gender comb) list is shuffled with an
 * Rng seeded by (seed, f_comb, gender comb) and cut at round(80%), clamped so that a list of two
 * or more keeps at least one template on each side (a single template goes to train). Train and
 * test never share a template, and a key's split does not depend on the rest of the bank.
 */
export function splitBank(bank: TemplateBank, seed: Seed, trainShare = TRAIN_SHARE): BankHalves {
  const train: Record<string, Record<string, string[]>> = {};
  const test: Record<string, Record<string, string[]>> = {};
  for (const [fComb, byGender] of Object.entries(bank)) {
    for (const [g, list] of Object.entries(byGender)) {
      const unique = [...new Set(list)];
      const shuffled = createRng(seed, 'template-split', fComb, g).shuffle(unique);
      const n = shuffled.length;
      const cut = n < 2 ? n : Math.min(n - 1, Math.max(1, Math.round(n * trainShare)));
      if (cut > 0) (train[fComb] ??= {})[g] = shuffled.slice(0, cut);
      if (cut < n) (test[fComb] ??= {})[g] = shuffled.slice(cut);
    }
  }
  return { train, test };
}

/**
 * The bank as JSON in the original format. With `originalSpelling`, keys use `neice` so that
 * the original Python generator finds them.
 */
export function bankToJson(bank: TemplateBank, options: { originalSpelling?: boolean } = {}): string {
  const out: Record<string, Record<string, readonly string[]>> = {};
  for (const [fComb, byGender] of Object.entries(bank)) {
    const key = options.originalSpelling ? fComb.replace(/\bniece\b/g, 'neice') : fComb;
    out[key] = { ...byGender };
  }
  return JSON.stringify(out, null, 1) + '\n';
}
