import { useId } from 'react';
import { formatCount } from '../../core/util/format';
import { AGREE_RULES, type AgreeRule, type CollectionSummary } from '../../study/collect/collect';
import { CollectCoverage } from './CollectCoverage';
import { CollectStories } from './CollectStories';
import { fixed } from './format';
import { useResults } from './store';

/**
 * The paper's peer review (Sinha et al. 2019, appendix "Data collection"): "79% of the collected
 * paraphrases passed the peer-review sanity check where all the reviewers agree on the quality".
 */
const PAPER_PASSED = 0.79;

const REASON_TEXT: Record<keyof CollectionSummary['reasons'], string> = {
  ungrammatical: 'Nonsense or ungrammatical',
  'missing-fact': 'A fact left out or told wrongly',
  'reveals-implied': 'States the implied fact',
  other: 'Another reason',
};

const AGREE_TEXT: Record<AgreeRule, string> = {
  all: 'every reviewer says good',
  majority: 'more reviewers say good than bad',
};

const AGREE_OPTION: Record<AgreeRule, string> = { all: 'all: every review good', majority: 'majority: most good' };

const percent = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)}%`);

/**
 * The collection dashboard, for the rows of paraphrase and review studies: the
 * stories per clause cell against the bank's cells, how many reviewers accepted, how far they
 * agree (Fleiss' κ), how varied the stories of one clause are (within-clause Jaccard, beside the
 * paper's Table 1), the reasons given for bad stories, and every story with its reviews. Stories
 * are judged as `templates collect` judges them, with its two settings here.
 */
export function CollectionPanel() {
  const id = useId();
  const c = useResults((s) => s.collection);
  const judge = useResults((s) => s.judge);
  const setJudge = useResults((s) => s.setJudge);
  if (!c) return null;
  const judged = c.accepted + c.rejected;
  return (
    <section className="results__collect" aria-labelledby={`${id}-h`} data-testid="collect-panel">
      <div className="results__collect" data-testid="collect-summary">
        <h2 id={`${id}-h`}>Paraphrase collection</h2>
        <p className="hint">
          Stories written in paraphrase studies and their reviews, judged as{' '}
          <code>
            templates collect --min-reviews {judge.minReviews} --agree {judge.agree}
          </code>{' '}
          judges them: a story is accepted once it has {judge.minReviews} review{judge.minReviews === 1 ? '' : 's'} and{' '}
          {AGREE_TEXT[judge.agree]}.
        </p>
        <div className="results__controls">
          <label className="results__field">
            Reviews needed
            <input
              type="number"
              min={0}
              max={20}
              step={1}
              value={judge.minReviews}
              onChange={(e) => {
                const n = Number(e.target.value);
                if (Number.isInteger(n) && n >= 0 && n <= 20) setJudge({ ...judge, minReviews: n });
              }}
              data-testid="collect-min-reviews"
            />
          </label>
          <label className="results__field">
            Agreement
            <select
              value={judge.agree}
              onChange={(e) => setJudge({ ...judge, agree: e.target.value as AgreeRule })}
              data-testid="collect-agree"
            >
              {AGREE_RULES.map((r) => (
                <option key={r} value={r}>
                  {AGREE_OPTION[r]}
                </option>
              ))}
            </select>
          </label>
        </div>
        <dl
          className="results__collect-counts"
          data-testid="collect-counts"
          data-paraphrases={c.paraphrases}
          data-passed={c.passedChecks}
          data-reviews={c.reviews}
          data-accepted={c.accepted}
          data-rejected={c.rejected}
          data-pending={c.pending}
        >
          <Count label="Stories written" value={c.paraphrases} />
          <Count label="Passed the live checks" value={c.passedChecks} />
          <Count label="Reviews" value={c.reviews} />
          <Count label="Accepted" value={c.accepted} />
          <Count label="Rejected" value={c.rejected} />
          <Count label="Waiting for reviews" value={c.pending} />
          {c.unanswered > 0 && <Count label="Trials without a story or verdict" value={c.unanswered} />}
        </dl>

        <div className="results__collect-cards">
          <article
            className="results__card"
            data-testid="collect-acceptance"
            data-value={c.acceptanceRate ?? ''}
            data-accepted={c.accepted}
            data-judged={judged}
          >
            <h3>Acceptance</h3>
            <p className="results__big">{percent(c.acceptanceRate)}</p>
            <p>
              {formatCount(c.accepted)} of {formatCount(judged)} judged stories accepted
              {c.pending > 0 ? `; ${formatCount(c.pending)} wait for reviews` : ''}.
            </p>
            <p className="hint">
              Paper: {percent(PAPER_PASSED)} of the collected paraphrases passed with every reviewer agreeing.
            </p>
          </article>

          <article
            className="results__card"
            data-testid="collect-kappa"
            data-value={c.kappa.kappa ?? ''}
            data-items={c.kappa.items}
            data-observed={c.kappa.observed}
            data-expected={c.kappa.expected}
          >
            <h3>Reviewer agreement</h3>
            <p className="results__big">κ = {c.kappa.kappa === null ? '–' : fixed(c.kappa.kappa, 3)}</p>
            <p>
              Fleiss&apos; κ over {formatCount(c.kappa.items)} stories with two or more reviews (good or bad): observed
              agreement {fixed(c.kappa.observed, 3)}, by chance {fixed(c.kappa.expected, 3)}.{' '}
              {c.unanimous !== null && <>Every reviewer agreed on {percent(c.unanimous)} of them.</>}
            </p>
            {c.kappa.kappa === null && (
              <p className="hint">
                {c.kappa.items === 0
                  ? 'No story has two reviews yet.'
                  : 'Every review gave the same verdict, so agreement beyond chance is undefined.'}
              </p>
            )}
          </article>

          <article className="results__card" data-testid="collect-reasons">
            <h3>Reasons for “bad”</h3>
            <ul className="results__collect-reasons">
              {(Object.keys(REASON_TEXT) as (keyof typeof REASON_TEXT)[]).map((r) => {
                const most = Math.max(1, ...Object.values(c.reasons));
                return (
                  <li key={r} data-testid="collect-reason" data-reason={r} data-count={c.reasons[r]}>
                    <span>{REASON_TEXT[r]}</span>
                    <span className="results__collect-bar" aria-hidden="true">
                      <span style={{ width: `${(c.reasons[r] / most) * 100}%` }} />
                    </span>
                    <span className="results__est">{formatCount(c.reasons[r])}</span>
                  </li>
                );
              })}
            </ul>
          </article>
        </div>

        <JaccardTable c={c} />
      </div>
      <CollectCoverage cells={c.cells} />
      <CollectStories stories={c.stories} />
      {c.problems.length > 0 && (
        <details className="results__collect-problems" data-testid="collect-problems" data-count={c.problems.length}>
          <summary>
            {formatCount(c.problems.length)} row{c.problems.length === 1 ? '' : 's'} or stor
            {c.problems.length === 1 ? 'y' : 'ies'} left out or noted
          </summary>
          <ul>
            {c.problems.slice(0, 200).map((p, i) => (
              <li key={i}>
                <span className="mono">{p.story_id || '(no story)'}</span>: {p.problem}
              </li>
            ))}
          </ul>
          {c.problems.length > 200 && <p className="hint">The first 200 are listed.</p>}
        </details>
      )}
    </section>
  );
}

function Count({ label, value }: { label: string; value: number }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd className="results__est">{formatCount(value)}</dd>
    </div>
  );
}

/** Within-clause Jaccard word overlap of our stories beside the paper's Table 1. */
function JaccardTable({ c }: { c: CollectionSummary }) {
  const id = useId();
  const lines = [
    {
      key: 'passed',
      label: 'Stories that passed the live checks (names taken out)',
      o: c.jaccard,
    },
    { key: 'accepted', label: 'Accepted templates', o: c.acceptedJaccard },
  ];
  return (
    <div
      className="results__table-wrap"
      data-testid="collect-jaccard"
      data-unigram={c.jaccard.unigram}
      data-bigram={c.jaccard.bigram}
      data-clauses={c.jaccard.clauses}
      data-paper-unigram={c.paperJaccard.unigram}
      data-paper-bigram={c.paperJaccard.bigram}
      tabIndex={0}
      role="region"
      aria-labelledby={`${id}-cap`}
    >
      <table className="results__table">
        <caption id={`${id}-cap`}>
          Within-clause word overlap (mean pairwise Jaccard over the stories of one relation combination; lower is more
          varied)
        </caption>
        <thead>
          <tr>
            <th scope="col">Which stories</th>
            <th scope="col">Unigrams</th>
            <th scope="col">Bigrams</th>
            <th scope="col">Clauses with 2+ stories</th>
            <th scope="col">Stories</th>
          </tr>
        </thead>
        <tbody>
          {lines.map(({ key, label, o }) => (
            <tr key={key} data-testid="collect-jaccard-row" data-key={key}>
              <th scope="row" className="results__wrap">
                {label}
              </th>
              <td className="results__est">{o.clauses > 0 ? fixed(o.unigram, 3) : '–'}</td>
              <td className="results__est">{o.clauses > 0 ? fixed(o.bigram, 4) : '–'}</td>
              <td>{formatCount(o.clauses)}</td>
              <td>{formatCount(o.stories)}</td>
            </tr>
          ))}
          <tr data-testid="collect-jaccard-row" data-key="paper">
            <th scope="row" className="results__wrap">
              Paper, Table 1 (6,016 AMT paraphrases)
            </th>
            <td className="results__est">{c.paperJaccard.unigram}</td>
            <td className="results__est">{c.paperJaccard.bigram}</td>
            <td>314</td>
            <td>6,016</td>
          </tr>
        </tbody>
      </table>
    </div>
  );
}
