import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Where a `generate` run spends its time, from a V8 CPU profile (`node --cpu-prof`) of the bundled
 * command line: each sample goes to the pipeline stage of the innermost frame on its stack whose
 * source (found through the bundle's source maps) belongs to a stage, so a helper such as the Rng
 * counts for the stage that called it. `npm run bench` prints these shares.
 */

export const STAGES = ['family', 'closure', 'puzzle', 'text', 'csv', 'gc', 'other'] as const;
export type Stage = (typeof STAGES)[number];

/** What each stage is, in a few words (bench's table). */
export const STAGE_HELP: Record<Stage, string> = {
  family: 'random families (core/family)',
  closure: 'closing them, proofs and solver (family/closure, reasoning)',
  puzzle: 'targets, noise, rows (core/puzzle)',
  text: 'stories, questions (core/text)',
  csv: 'CSV and JSONL records, bytes (core/formats)',
  gc: 'garbage collection',
  other: 'start-up, files, threads, the command line',
};

/** The stage a source file belongs to, or null (a helper: its caller's stage counts). */
export function stageOfSource(source: string): Stage | null {
  if (/core\/family\/(closure|clutrrClosure)|core\/reasoning\//.test(source)) return 'closure';
  if (/core\/family\//.test(source)) return 'family';
  if (/core\/puzzle\//.test(source)) return 'puzzle';
  if (/core\/text\//.test(source)) return 'text';
  if (/core\/formats\//.test(source)) return 'csv';
  return null;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
    readonly columnNumber: number;
  };
  readonly children?: readonly number[];
}

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface StageReport {
  /** Sampled time of the thread, in milliseconds (idle excluded). */
  readonly totalMs: number;
  /** Milliseconds per stage. */
  readonly ms: Record<Stage, number>;
  /** The functions with the most self time: name, source, milliseconds. */
  readonly top: readonly { readonly name: string; readonly source: string; readonly ms: number }[];
}

/**
 * Reads a profile's samples into stage times. `sourceOf` names a frame's original source file
 * (the default reads the `.map` beside each bundled file).
 */
export function profileStages(
  profile: CpuProfile,
  sourceOf: (frame: ProfileNode['callFrame']) => string = bundleSources(),
  topCount = 12,
): StageReport {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const memo = new Map<number, Stage | 'idle'>();
  const stageOfNode = (id: number): Stage | 'idle' => {
    const known = memo.get(id);
    if (known) return known;
    const leaf = byId.get(id)!.callFrame.functionName;
    let stage: Stage | 'idle' | null =
      leaf === '(garbage collector)' ? 'gc' : leaf === '(idle)' ? 'idle' : leaf === '(program)' ? 'other' : null;
    for (let cur: number | undefined = id; stage === null && cur !== undefined; cur = parent.get(cur)) {
      stage = stageOfSource(sourceOf(byId.get(cur)!.callFrame));
    }
    memo.set(id, stage ?? 'other');
    return stage ?? 'other';
  };
  const ms = Object.fromEntries(STAGES.map((s) => [s, 0])) as Record<Stage, number>;
  const self = new Map<string, { name: string; source: string; ms: number }>();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const t = (profile.timeDeltas[i] ?? 0) / 1000;
    const id = profile.samples[i]!;
    const stage = stageOfNode(id);
    if (stage === 'idle') continue;
    total += t;
    ms[stage] += t;
    const frame = byId.get(id)!.callFrame;
    const name = frame.functionName || '(anonymous)';
    const source = sourceOf(frame);
    const key = `${name} ${source}`;
    const entry = self.get(key) ?? { name, source, ms: 0 };
    entry.ms += t;
    self.set(key, entry);
  }
  const top = [...self.values()].sort((a, b) => b.ms - a.ms).slice(0, topCount);
  return { totalMs: total, ms, top };
}

/** A frame's original source through the source map beside its bundled file (`x.mjs.map`). */
export function bundleSources(): (frame: ProfileNode['callFrame']) => string {
  const maps = new Map<string, SourceMap | null>();
  return (frame) => {
    const { url } = frame;
    if (!url.startsWith('file://')) return url || '(native)';
    let map = maps.get(url);
    if (map === undefined) {
      try {
        map = new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8')));
      } catch {
        map = null;
      }
      maps.set(url, map);
    }
    const entry = map?.findEntry(frame.lineNumber, frame.columnNumber);
    const source = entry && 'originalSource' in entry ? entry.originalSource : undefined;
    return source ? source.replace(/^.*?\/((src|cli)\/)/, '$1') : url.replace(/^.*\//, '');
  };
}
