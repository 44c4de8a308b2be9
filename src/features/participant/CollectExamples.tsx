/**
 * A good and a bad story for the paraphrase and review studies, built as the paper's task page
 * was (facts to tell, the fact to keep back, a story, and why it is good or bad), in our own
 * words and with our own people. Each is a real clause (`makeClause`), so its facts read as a
 * trial's do, and the live checks judge the stories as the text says (examples.test.ts).
 */
import { factSentences, impliedSentence, makeClause, type Clause } from '../../study/collect/clause';

interface Example {
  readonly clause: Clause;
  readonly story: string;
  readonly why: readonly string[];
}

export const GOOD_EXAMPLE: Example = {
  // Tom is Lena's brother; Maria is Tom's mother; so Maria is Lena's mother.
  clause: makeClause(['brother', 'mother'], 'female', ['Lena', 'Tom', 'Maria']),
  story: 'Maria drove her son Tom to his football match on Saturday. His sister Lena came along to cheer for him.',
  why: [
    'It tells both facts and names all three people.',
    'It leaves the reader to work out that Lena is Maria’s daughter.',
  ],
};

export const BAD_EXAMPLE: Example = {
  // Omar is Greg's son; Nina is Omar's sister; so Nina is Greg's daughter.
  clause: makeClause(['son', 'sister'], 'male', ['Greg', 'Omar', 'Nina']),
  story: 'Greg is married with Omar and his daughter is Nina.',
  why: [
    'It is nonsense: “married with Omar” is not English, and Omar is Greg’s son.',
    'It does not tell the facts: neither that Omar is Greg’s son nor that Nina is Omar’s sister.',
    'It states the implied fact: “his daughter is Nina”.',
  ],
};

function ExampleCard({ title, example, good }: { title: string; example: Example; good: boolean }) {
  return (
    <div className={`collect-example collect-example--${good ? 'good' : 'bad'}`}>
      <h3>{title}</h3>
      <p className="collect-example__label">Facts to tell</p>
      <ul>
        {factSentences(example.clause).map((f) => (
          <li key={f}>{f}</li>
        ))}
      </ul>
      <p className="collect-example__label">Not to be stated</p>
      <p>{impliedSentence(example.clause)}</p>
      <p className="collect-example__label">Story</p>
      <blockquote>{example.story}</blockquote>
      <p className="collect-example__label">{good ? 'Why it is good' : 'Why it is bad'}</p>
      <ul>
        {example.why.map((w) => (
          <li key={w}>{w}</li>
        ))}
      </ul>
    </div>
  );
}

/** The two examples side by side on wide screens, one above the other on phones. */
export function CollectExamples({ testId }: { testId?: string }) {
  return (
    <div className="collect-examples" data-testid={testId}>
      <ExampleCard title="A good story" example={GOOD_EXAMPLE} good />
      <ExampleCard title="A bad story" example={BAD_EXAMPLE} good={false} />
    </div>
  );
}
