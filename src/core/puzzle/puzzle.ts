import { closeFamily, type KinGraph } from '../family/closure';
import { closeFamilyAsClutrrCached } from '../family/clutrrClosure';
import { ShapeCache } from '../family/shapeCache';
import {
  checkFamilyParams,
  DEFAULT_FAMILY,
  type Family,
  type FamilyParams,
  FamilyStore,
  generateFamily,
  maxFamilySize,
  type PersonId,
} from '../family/family';
import {
  type Gender,
  PRED_CODE,
  type PredCode,
  type Predicate,
  predicateOf,
  type RelationWord,
  wordForCode,
} from '../kinship/relations';
import { backwardChain, type Chain, type ChainEdge } from '../reasoning/backwardChain';
import { bit, cykPath, DEFAULT_PATH_LIMIT, derive, type SolverFact } from '../reasoning/solver';
import { createRng, type Rng, type Seed } from '../random/rng';
import { mapped } from '../util/mapped';
import { type TaskId, isTaskId } from './tasks';
import { GenerationError } from './generationError';

export type FactKind = 'path' | 'supporting' | 'irrelevant' | 'disconnected' | 'memory';

/** A person as the story knows them: `index` is the story's node index (0 and k are the query). */
export interface StoryEntity {
  readonly index: number;
  readonly person: PersonId;
  readonly name: string;
  readonly gender: Gender;
}

/** "to is from's word", in story node indices. */
export interface Triple {
  readonly from: number;
  readonly to: number;
  readonly predicate: Predicate;
  readonly word: RelationWord;
}

export interface StoryFact extends Triple {
  /** Position in `facts`: path facts are 0..k-1 in path order, noise follows. */
  readonly id: number;
  readonly kind: FactKind;
  /**
   * The chain the fact belongs to: 0 for the path, then one number per noise path. The facts of
   * a chain are consecutive in `facts`, each starting where the previous one ends.
   */
  readonly chain: number;
}

export interface ProofStep {
  readonly head: Triple;
  readonly body: readonly [Triple, Triple];
}

export interface Puzzle {
  readonly seed: string;
  readonly k: number;
  readonly task: TaskId;
  readonly familyParams: FamilyParams;
  readonly family: Family;
  readonly entities: readonly StoryEntity[];
  readonly facts: readonly StoryFact[];
  /** [first query entity, second query entity]: "how is query[1] related to query[0]?" */
  readonly query: readonly [number, number];
  readonly target: { readonly predicate: Predicate; readonly word: RelationWord };
  /** Backward-chaining expansions, outermost first. */
  readonly proof: readonly ProofStep[];
  /** The path's relation words joined by `-` (CLUTRR's f_comb). */
  readonly pattern: string;
  /** Fact ids in the order the story tells them (path and noise shuffled together). */
  readonly storyOrder: readonly number[];
  /**
   * Present (true) only for a puzzle made in strict mode: its proof and its uniqueness check used
   * the sound rules only. Absent otherwise, so non-strict puzzles serialise as they always did.
   */
  readonly strict?: true;
  /**
   * Present ('clutrr') only for a puzzle made in CLUTRR's labelling (`labels: 'clutrr'`): its
   * facts and label come from the family as CLUTRR's generator closes it, and may be false in
   * the family. Absent otherwise, so other puzzles serialise as they always did.
   */
  readonly labels?: 'clutrr';
}

/**
 * A puzzle without the family it was drawn from: what a dataset row keeps (the family is about
 * three quarters of a puzzle's memory) and all that rendering and export need.
 */
export type PuzzleRecord = Omit<Puzzle, 'family'>;

/** Drops the family (for rows kept by the thousand). */
export function toRecord(p: Puzzle): PuzzleRecord {
  // Field by field in Puzzle's key order (object rest is a slow path in V8, and this runs for
  // every row); `strict` only when present, as in the puzzle.
  const record: PuzzleRecord = {
    seed: p.seed,
    k: p.k,
    task: p.task,
    familyParams: p.familyParams,
    entities: p.entities,
    facts: p.facts,
    query: p.query,
    target: p.target,
    proof: p.proof,
    pattern: p.pattern,
    storyOrder: p.storyOrder,
  };
  if (p.labels) return { ...record, labels: p.labels };
  return p.strict ? { ...record, strict: p.strict } : record;
}

export interface PuzzleOptions {
  readonly seed: Seed;
  readonly k: number;
  readonly task: TaskId;
  readonly family?: Partial<FamilyParams>;
  /** Only patterns (f_comb) for which this returns true are emitted. */
  readonly accept?: (pattern: string) => boolean;
  /** How many random families to try before giving up (bounded time on impossible settings). */
  readonly maxFamilies?: number;
  /**
   * Strict mode: backward chaining and the uniqueness checks use only the rules that are sound in
   * generated families (COMPOSE_SOUND), so the answer follows from the story for a careful reader,
   * not only under CLUTRR's rule base. Default false (CLUTRR's sixteen rules).
   */
  readonly strict?: boolean;
  /**
   * Whose labels: 'family' (default) closes the family by what holds in it (closeFamily);
   * 'clutrr' closes it as CLUTRR's original generator does (closeFamilyAsClutrr: its two
   * assumption rules included, first derivation wins), so targets and facts are CLUTRR's, wrong
   * in some families. Every puzzle is still uniquely entailed under the full rule base. Not with
   * `strict`.
   */
  readonly labels?: LabelSource;
  /**
   * With `labels: 'clutrr'` only: also keep chains the rule base cannot decide (my husband's son's
   * grandmother: my mother or my mother-in-law), labelled as CLUTRR's closure labels the pair, and
   * noise that leaves the target one of several answers — as CLUTRR's generator does, which checks
   * neither. The target is still derivable from the facts. For training and measuring on data
   * labelled like the release, never for a fair test of reasoning.
   */
  readonly keepAmbiguous?: boolean;
}

export const LABEL_SOURCES = ['family', 'clutrr'] as const;
export type LabelSource = (typeof LABEL_SOURCES)[number];

/** Why strict mode and CLUTRR's labels are refused together (one message for every caller). */
export const STRICT_CLUTRR_LABELS =
  "--strict and --labels clutrr cannot be combined: CLUTRR's labels rest on its assumption rules, which strict mode leaves out";

/** Why keeping ambiguous chains needs CLUTRR's labels (one message for every caller). */
export const KEEP_AMBIGUOUS_NEEDS_CLUTRR =
  "--keep-ambiguous needs --labels clutrr: ambiguous chains are kept only to label data as CLUTRR's generator does";

export { GenerationError };

const TARGETS_PER_FAMILY = 12;
export const DEFAULT_MAX_FAMILIES = 300;

/** Checks settings that are impossible on their face; returns the reason or undefined. */
export function checkPuzzleSettings(k: number, task: number, family: FamilyParams): string | undefined {
  if (!Number.isInteger(k) || k < 1) return `k must be a whole number ≥ 1 (got ${k})`;
  if (!isTaskId(task)) return `task must be one of 1–7 (got ${task})`;
  const bad = checkFamilyParams(family);
  if (bad) return bad;
  const size = maxFamilySize(family);
  if (k >= 2 && family.maxChild === 0) {
    return `a story of k = ${k} needs children in the family, but max-child is 0`;
  }
  if (size < k + 1) {
    return `k = ${k} needs ${k + 1} different people on the story path, but a family with max-levels ${family.maxLevels} and max-child ${family.maxChild} has at most ${size}`;
  }
  return undefined;
}

/**
 * Generates one puzzle: a fresh random family, closed under the rules; a random target edge;
 * backward chaining to a simple path of k facts; the task's noise; a check that the solver,
 * run on the story's facts alone, derives exactly the target. Deterministic in the options.
 * With `strict`, every rule used (chaining and checks) is one that is sound in the family.
 * Throws GenerationError when the settings cannot be met within `maxFamilies` families.
 */
/** The family settings a puzzle is generated with: the defaults, overridden by those given. */
export const familyParams = (family?: Partial<FamilyParams>): FamilyParams => ({ ...DEFAULT_FAMILY, ...family });

export function generatePuzzle(opts: PuzzleOptions): Puzzle {
  return makePuzzle(opts, false);
}

/**
 * toRecord(generatePuzzle(opts)), the same record, made without a family of its own: the families
 * tried are built in one store of person objects, rewritten for each (what a dataset row needs).
 */
export function generatePuzzleRecord(opts: PuzzleOptions): PuzzleRecord {
  // The record is copied out of the store before anything else can generate.
  return toRecord(makePuzzle(opts, true));
}

function makePuzzle(opts: PuzzleOptions, useStore: boolean): Puzzle {
  const family = familyParams(opts.family);
  const problem = checkPuzzleSettings(opts.k, opts.task, family);
  if (problem) throw new GenerationError(problem);
  if (opts.strict === true && opts.labels === 'clutrr') throw new GenerationError(STRICT_CLUTRR_LABELS);
  if (opts.keepAmbiguous === true && opts.labels !== 'clutrr') throw new GenerationError(KEEP_AMBIGUOUS_NEEDS_CLUTRR);
  const rng = createRng(opts.seed);
  const maxFamilies = opts.maxFamilies ?? DEFAULT_MAX_FAMILIES;
  const strict = opts.strict === true;
  const stats = { chains: 0, filtered: 0, ambiguous: 0, noNoise: 0 };
  // The scratch (one closed graph for every family of the same shape, one store of person objects
  // rewritten for each family) goes to one call at a time: a call made while another runs (an
  // `accept` that generates puzzles itself) works without it. Neither changes a puzzle.
  const borrow = !scratchBusy;
  scratchBusy = true;
  try {
    const shapes = borrow && maxFamilySize(family) <= 256 ? SHAPES : undefined;
    const store = borrow && useStore ? STORE : undefined;
    return tryFamilies(opts, family, rng, maxFamilies, strict, stats, shapes, store);
  } finally {
    if (borrow) scratchBusy = false;
  }
}

/** Whether a call holds the scratch below. */
let scratchBusy = false;
const SHAPES = new ShapeCache();
const STORE = new FamilyStore();

function tryFamilies(
  opts: PuzzleOptions,
  family: FamilyParams,
  rng: Rng,
  maxFamilies: number,
  strict: boolean,
  stats: { chains: number; filtered: number; ambiguous: number; noNoise: number },
  shapes: ShapeCache | undefined,
  store: FamilyStore | undefined,
): Puzzle {
  const keep = opts.keepAmbiguous === true;
  for (let f = 0; f < maxFamilies; f++) {
    const fam = generateFamily(rng, family, store);
    if (fam.people.length < opts.k + 1) continue;
    const g = opts.labels === 'clutrr' ? closeFamilyAsClutrrCached(fam) : shapes ? shapes.close(fam) : closeFamily(fam);
    const middles = shapes ? shapes.middles(g, strict) : null;
    for (let t = 0; t < TARGETS_PER_FAMILY; t++) {
      const target = pickTarget(g, opts.k, rng);
      if (!target) break;
      const chain = backwardChain(g, target[0], target[1], opts.k, rng, strict, middles);
      if (!chain) continue;
      stats.chains++;
      const pattern = mapped(chain.edges, (e) => wordForCode(e.r, fam.people[e.y]!.gender)).join('-');
      if (opts.accept && !opts.accept(pattern)) {
        stats.filtered++;
        continue;
      }
      // Patterns the rule base cannot decide (husband-son-grandmother) are never emitted (unless
      // keepAmbiguous: then the target need only be one of the answers); a strict puzzle is
      // decided both by the sound rules and by the full rule base.
      const codes = mapped(chain.edges, (e) => e.r);
      const answers = cykPath(codes, strict);
      if (
        keep
          ? (answers & bit(target[2])) === 0
          : answers !== bit(target[2]) || (strict && cykPath(codes, false) !== bit(target[2]))
      ) {
        stats.ambiguous++;
        continue;
      }
      const task: TaskId = opts.task === 7 ? (rng.chance(0.5) ? 6 : 1) : opts.task;
      const noise = addNoise(g, chain, task, target[2], rng, strict, keep);
      if (!noise) {
        stats.noNoise++;
        continue;
      }
      return assemble(opts, family, fam, chain, target[2], noise, pattern, rng);
    }
  }
  throw new GenerationError(explainFailure(opts, family, maxFamilies, stats));
}

function explainFailure(
  opts: PuzzleOptions,
  family: FamilyParams,
  maxFamilies: number,
  s: { chains: number; filtered: number; ambiguous: number; noNoise: number },
): string {
  const where = `in ${maxFamilies} random families (max-levels ${family.maxLevels}, children ${family.minChild}–${family.maxChild}, p-marry ${family.pMarry})`;
  if (s.chains === 0) {
    return `no simple path of k = ${opts.k} facts could be built ${where}; lower k or grow the family (more levels or children)`;
  }
  if (opts.accept && s.filtered === s.chains) {
    return `none of the ${s.chains} stories of k = ${opts.k} built ${where} matched the pattern filter`;
  }
  if (s.noNoise > 0) {
    return `the families were too small to add the noise of task ${opts.task} at k = ${opts.k} ${where}; grow the family`;
  }
  const rules = opts.strict ? ' under the sound rules (strict mode)' : '';
  return `no uniquely entailed story of k = ${opts.k} was found${rules} ${where} (${s.ambiguous} ambiguous, ${s.filtered} filtered out)`;
}

/** A random related pair (a, b) with its relation; SO targets only at k = 1 (no rule yields SO). */
function pickTarget(g: KinGraph, k: number, rng: Rng): [number, number, PredCode] | null {
  const { n, rel } = g;
  const ok = (i: number) => rel[i] !== 0 && (k === 1 || rel[i] !== PRED_CODE.SO);
  for (let tries = 0; tries < 64; tries++) {
    const i = rng.int(n * n);
    if (ok(i)) return [(i / n) | 0, i % n, rel[i]!];
  }
  const all: number[] = [];
  for (let i = 0; i < n * n; i++) if (ok(i)) all.push(i);
  if (all.length === 0) return null;
  const i = rng.pick(all);
  return [(i / n) | 0, i % n, rel[i]!];
}

/**
 * The relations noise facts are drawn from, by predicate code: parents, children, siblings and
 * spouses, the edges of the family tree that the original generator's noise uses (in the released
 * noisy sets almost every noise fact is one of these; none is an in-law, an uncle or a grandparent).
 */
const NOISE_RELATION: readonly boolean[] = (() => {
  const ok: boolean[] = [];
  for (const p of ['child', 'inv-child', 'sibling', 'SO'] as const) ok[PRED_CODE[p]] = true;
  return ok;
})();

interface NoiseEdge extends ChainEdge {
  readonly kind: FactKind;
  readonly chain: number;
}

/**
 * Adds the task's noise to a chain, in family-person terms. Noise people are never on the path
 * and never shared between noise paths, so each kind meets its definition exactly:
 * supporting = a two-fact detour between two path people at most two steps apart;
 * irrelevant = a dangling path from one path person; disconnected = a path touching no path
 * person. Returns null when the family cannot hold the noise or the story would stop being
 * uniquely entailed (under the sound rules only, when `strict`).
 */
function addNoise(
  g: KinGraph,
  chain: Chain,
  task: TaskId,
  targetRel: PredCode,
  rng: Rng,
  strict: boolean,
  keepAmbiguous = false,
): NoiseEdge[] | null {
  const { n, rel } = g;
  const k = chain.edges.length;
  const used = new Uint8Array(n);
  for (const p of chain.people) used[p] = 1;
  const noise: NoiseEdge[] = [];
  const half = Math.max(1, Math.floor(k / 2));
  let chainNo = 0;

  const neighbours = (v: number): number[] => {
    const out: number[] = [];
    for (let w = 0; w < n; w++) if (!used[w] && NOISE_RELATION[rel[v * n + w]!]) out.push(w);
    return out;
  };
  const edge = (x: number, y: number, kind: FactKind): NoiseEdge => ({
    x,
    y,
    r: rel[x * n + y]!,
    kind,
    chain: chainNo,
  });
  const walk = (start: number, length: number, kind: FactKind): boolean => {
    let cur = start;
    chainNo++;
    let added = 0;
    for (let s = 0; s < length; s++) {
      const ws = neighbours(cur);
      if (ws.length === 0) break;
      const w = rng.pick(ws);
      used[w] = 1;
      noise.push(edge(cur, w, kind));
      cur = w;
      added++;
    }
    return added > 0;
  };
  const entailed = () => {
    const people = new Map<number, number>();
    const idx = (p: number) => {
      let i = people.get(p);
      if (i === undefined) people.set(p, (i = people.size));
      return i;
    };
    const facts: SolverFact[] = [...chain.edges, ...noise].map((e) => ({
      from: idx(e.x),
      to: idx(e.y),
      predicate: e.r,
    }));
    const a = idx(chain.people[0]!);
    const b = idx(chain.people[k]!);
    const { mask } = derive(people.size, facts, a, b, DEFAULT_PATH_LIMIT, strict);
    if (keepAmbiguous) return (mask & bit(targetRel)) !== 0;
    if (mask !== bit(targetRel)) return false;
    // Strict: the full rule base must agree (a noise path can make it ambiguous).
    return !strict || derive(people.size, facts, a, b, DEFAULT_PATH_LIMIT, false).mask === mask;
  };

  const supporting = (): boolean => {
    for (let attempt = 0; attempt < 16; attempt++) {
      const i = rng.int(k);
      const j = Math.min(k, i + (k >= 2 && rng.chance(0.5) ? 2 : 1));
      const u = chain.people[i]!;
      const v = chain.people[j]!;
      const ws: number[] = [];
      for (let w = 0; w < n; w++) {
        if (!used[w] && NOISE_RELATION[rel[u * n + w]!] && NOISE_RELATION[rel[w * n + v]!]) ws.push(w);
      }
      if (ws.length === 0) continue;
      const w = rng.pick(ws);
      chainNo++;
      noise.push(edge(u, w, 'supporting'), edge(w, v, 'supporting'));
      if (entailed()) {
        used[w] = 1;
        return true;
      }
      noise.length -= 2;
    }
    return false;
  };
  const irrelevant = (): boolean => {
    const anchors = rng.shuffle([...chain.people]);
    for (const a of anchors) if (walk(a, rng.range(1, half), 'irrelevant')) return true;
    return false;
  };
  const disconnected = (): boolean => {
    const starts: number[] = [];
    for (let v = 0; v < n; v++) if (!used[v]) starts.push(v);
    rng.shuffle(starts);
    for (const s of starts.slice(0, 16)) {
      used[s] = 1;
      if (walk(s, rng.range(1, half), 'disconnected')) return true;
      used[s] = 0;
    }
    return false;
  };

  switch (task) {
    case 1:
      break;
    case 2: {
      const count = rng.range(1, half);
      for (let c = 0; c < count; c++) if (!supporting()) return c === 0 ? null : noise;
      break;
    }
    case 3:
      if (!irrelevant()) return null;
      break;
    case 4:
      if (!disconnected()) return null;
      break;
    case 5:
      if (!supporting() || !irrelevant() || !disconnected()) return null;
      break;
    case 6:
    case 7:
      if (k >= 2) {
        noise.push({ x: chain.people[0]!, y: chain.people[k]!, r: targetRel, kind: 'memory', chain: ++chainNo });
        if (!entailed()) return null;
      }
      break;
  }
  return noise;
}

function assemble(
  opts: PuzzleOptions,
  familyParams: FamilyParams,
  family: Family,
  chain: Chain,
  targetRel: PredCode,
  noise: readonly NoiseEdge[],
  pattern: string,
  rng: Rng,
): Puzzle {
  const entities: StoryEntity[] = [];
  // A story has a few dozen people at most: a scan of the entities finds one sooner than a Map,
  // which would be built for every puzzle.
  const entity = (p: number): number => {
    for (let i = 0; i < entities.length; i++) if (entities[i]!.person === p) return i;
    const person = family.people[p]!;
    entities.push({ index: entities.length, person: person.id, name: person.name, gender: person.gender });
    return entities.length - 1;
  };
  for (const p of chain.people) entity(p);
  const triple = (e: ChainEdge): Triple => {
    const word = wordForCode(e.r, family.people[e.y]!.gender);
    return { from: entity(e.x), to: entity(e.y), predicate: predicateOf(e.r), word };
  };
  // Built field by field: object spread is a slow path in V8, and this runs for every fact.
  const fact = (e: ChainEdge, id: number, kind: FactKind, chainNo: number): StoryFact => {
    const word = wordForCode(e.r, family.people[e.y]!.gender);
    return { from: entity(e.x), to: entity(e.y), predicate: predicateOf(e.r), word, id, kind, chain: chainNo };
  };
  const facts: StoryFact[] = mapped(chain.edges, (e, id) => fact(e, id, 'path', 0));
  noise.forEach((e, i) => facts.push(fact(e, chain.edges.length + i, e.kind, e.chain)));
  const k = chain.edges.length;
  const targetPred = predicateOf(targetRel);
  const b = family.people[chain.people[k]!]!;
  const puzzle: Puzzle = {
    seed: String(opts.seed),
    k,
    task: opts.task,
    familyParams,
    family,
    entities,
    facts,
    query: [0, k],
    target: { predicate: targetPred, word: wordForCode(targetRel, b.gender) },
    proof: mapped(chain.steps, (s) => ({
      head: triple(s.head),
      body: [triple(s.body[0]), triple(s.body[1])] as const,
    })),
    pattern,
    storyOrder: rng.shuffle(mapped(facts, (f) => f.id)),
  };
  // Added last and only when on: a non-strict puzzle keeps exactly its old keys and key order.
  if (opts.labels === 'clutrr') return { ...puzzle, labels: 'clutrr' };
  return opts.strict ? { ...puzzle, strict: true } : puzzle;
}
