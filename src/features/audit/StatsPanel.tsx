import { useMemo } from 'react';
import {
  fixed,
  mergeStoryStats,
  type StoryFigures,
  storyStatsLine,
  storyStatsResult,
} from '../../core/formats/storyStats';
import { formatCount as fmt } from '../../core/util/format';
import { useAudit } from './store';
import '../../ui/table.css';
import { TableScroll } from '../../ui/TableScroll';

/** Column heads with what each one measures (the CLI's `stats --help` says the same at length). */
const HEADS: readonly (readonly [string, string])[] = [
  ['Rows', 'rows'],
  ['Patterns', 'distinct f_comb patterns'],
  ['τ', 'Kendall τ between path order and the order people are first named, mean over rows'],
  ['Skipped', 'rows without τ: fewer than 2 path people named, or path facts that do not walk'],
  ['First = q0', 'share of rows whose first named person is the first query entity'],
  ['Words / fact', 'story words / story_edges, mean over rows'],
  ['Facts / sentence', 'story_edges / sentences, mean over rows'],
  ['Majority', 'accuracy of the most frequent target of each k'],
  ['Last word', 'accuracy of the last kinship word in the story, read for the answer’s gender'],
  ['Assumed', 'share of the entailed rows that only an assumption rule decides'],
  ['In no family', 'share of the entailed rows whose label is true in no family where the facts hold'],
];

/** The cells of one line, formatted exactly as `npm run cli -- stats` prints them. */
function FigureCells({ f }: { f: StoryFigures }) {
  return (
    <>
      <td>{fmt(f.rows)}</td>
      <td>{fmt(f.patterns)}</td>
      <td>{fixed(f.tau, 3)}</td>
      <td>{fmt(f.tauSkipped)}</td>
      <td>{fixed(f.firstIsQ0, 3)}</td>
      <td>{fixed(f.wordsPerFact, 2)}</td>
      <td>{fixed(f.factsPerSentence, 2)}</td>
      <td>{fixed(f.majorityAcc, 3)}</td>
      <td>{fixed(f.lastWordAcc, 3)}</td>
      <td>{fixed(f.assumedShare, 3)}</td>
      <td>{fixed(f.impossibleShare, 3)}</td>
    </>
  );
}

const counts = (list: readonly (readonly [string, number])[]) => list.map(([w, n]) => `${w} ${fmt(n)}`).join(', ');

/**
 * The shortcut and character report of every file read whole (as `npm run cli -- stats` over the
 * same files): per k and overall, how the stories are told and how far simple baselines get.
 */
export function StatsPanel() {
  const files = useAudit((s) => s.files);
  const stats = useAudit((s) => s.stats);
  const result = useMemo(
    () => storyStatsResult(mergeStoryStats(...files.flatMap((f) => stats.get(f.name) ?? []))),
    [files, stats],
  );
  if (result.overall.rows === 0) return null;
  const noise: (readonly [string, string])[] = result.byK.flatMap((f) => [
    ...f.noise.map((n) => [`Noise, k = ${f.k}, ${n.kind}`, counts(n.words)] as const),
    ...(f.untypedNoise > 0 ? [[`Noise, k = ${f.k}, edges without a type`, fmt(f.untypedNoise)] as const] : []),
  ]);
  if (noise.length === 0) noise.push(['Noise', 'no noise facts']);
  return (
    <section className="audit__summary audit__stats" aria-labelledby="au-stats-h" data-testid="audit-stats">
      <h2 id="au-stats-h">Shortcuts and character</h2>
      <p className="hint">
        As <code>npm run cli -- stats</code> over the files read whole. A low τ and first = q0 mean the story is not
        told along the path; the baselines show how far an answer can be read off the text without reasoning.
      </p>
      <TableScroll
        className="audit__table-wrap"
        sticky="first"
        label="Shortcuts and character per story length k (scrolls sideways)"
      >
        <table className="audit__table">
          <caption>Per story length k</caption>
          <thead>
            <tr>
              <th scope="col">k</th>
              {HEADS.map(([head, title]) => (
                <th scope="col" key={head} title={title}>
                  {head}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {result.byK.map((f) => (
              <tr key={f.k} data-testid="audit-stats-k" data-k={f.k}>
                <th scope="row">{f.k}</th>
                <FigureCells f={f} />
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr data-testid="audit-stats-overall">
              <th scope="row">All</th>
              <FigureCells f={result.overall} />
            </tr>
          </tfoot>
        </table>
      </TableScroll>
      <p className="audit__stats-line">
        <code data-testid="audit-stats-line">{storyStatsLine(result)}</code>
      </p>
      <details className="audit__stats-more">
        <summary>Targets, assumed patterns and noise vocabulary</summary>
        <dl className="audit__stats-list" data-testid="audit-stats-targets">
          {result.byK.map((f) => (
            <div key={f.k}>
              <dt>Targets, k = {f.k}</dt>
              <dd>{counts(f.targets)}</dd>
            </div>
          ))}
        </dl>
        <dl className="audit__stats-list" data-testid="audit-stats-assumed">
          {result.byK.map((f) => (
            <div key={f.k}>
              <dt>
                Assumed patterns, k = {f.k} ({fmt(f.assumedPatterns.length)})
              </dt>
              <dd>{f.assumedPatterns.length === 0 ? 'none' : counts(f.assumedPatterns)}</dd>
            </div>
          ))}
        </dl>
        <dl className="audit__stats-list" data-testid="audit-stats-noise">
          {noise.map(([label, text]) => (
            <div key={label}>
              <dt>{label}</dt>
              <dd>{text}</dd>
            </div>
          ))}
        </dl>
      </details>
    </section>
  );
}
