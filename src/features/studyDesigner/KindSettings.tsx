import { useId } from 'react';
import { readStoriesFile } from '../../study/collect/reviewStories';
import { KIND_NAMES, KIND_WORDS, type StudyKind } from '../../study/definition/vocabulary';
import { STUDY_OPTIONS } from '../../study/definition/studyOptions';
import { storiesFileName } from '../../study/definition/commandLine';
import { saveFile } from '../../ui/saveFile';
import { Check, GroupProblem, OptionGroup } from './fields';
import { useStudyDesigner } from './store';

/** What each kind asks of participants, under its choice. */
const KIND_HINTS: Record<StudyKind, string> = {
  solve: 'Participants solve CLUTRR puzzles: a story, a question, twenty relation words.',
  paraphrase:
    'Participants write short stories from the facts of a clause, keeping back the fact that follows from them, as the paper’s crowd workers did. Live checks before each story is accepted.',
  review: 'Participants rate stories written by others as good or bad (with reasons), as the paper’s peer review did.',
  adaptive:
    'Participants solve puzzles whose story length k follows their answers (a staircase or QUEST+), to find each person’s threshold k in few trials.',
};

/** The name of each kind's choice. */
const KIND_TITLES: Record<StudyKind, string> = {
  solve: 'Solve puzzles',
  paraphrase: 'Write paraphrases',
  review: 'Review paraphrases',
  adaptive: 'Adaptive puzzles',
};

/** The kind of study, first of all: it decides which settings follow. */
export function KindChoice() {
  const kind = useStudyDesigner((s) => s.form.kind);
  const setField = useStudyDesigner((s) => s.setField);
  const id = useId();
  return (
    <fieldset data-testid="study-kind">
      <legend>{STUDY_OPTIONS.kind.label}</legend>
      <div className="sd-kinds" role="radiogroup" aria-describedby={`${id}-hint`}>
        {KIND_WORDS.map((k) => (
          <label key={k} className="sd-kind">
            <input
              type="radio"
              name="kind"
              value={k}
              data-testid="study-kind-option"
              checked={kind === k}
              onChange={() => setField('kind', k)}
            />
            <span>
              <strong>{KIND_TITLES[k]}</strong>
              <span className="hint">{KIND_HINTS[k]}</span>
            </span>
          </label>
        ))}
      </div>
      <p id={`${id}-hint`} className="hint">
        A {KIND_NAMES.paraphrase} study collects stories; a {KIND_NAMES.review} study has them rated;{' '}
        <code>npm run cli -- templates collect</code> turns the accepted ones into templates.
      </p>
      <GroupProblem input="kind" />
    </fieldset>
  );
}

/** An adaptive study's settings: the puzzles' k range and tasks, the procedure and its stopping rule. */
export function AdaptiveSettings() {
  return (
    <OptionGroup
      legend="Adaptive run"
      fields={['studyId', 'seed', 'k', 'tasks', 'templateSplit', 'practice', 'adaptive', 'adaptiveTrials', 'ciWidth']}
      testId="study-adaptive-settings"
    >
      <Check field="strict" label={STUDY_OPTIONS.strict.label} hint={STUDY_OPTIONS.strict.help} />
      <Check field="showEstimate" label={STUDY_OPTIONS.showEstimate.label} hint={STUDY_OPTIONS.showEstimate.help} />
      <p className="hint">
        The k values are the levels the procedure moves between. The staircase makes the story one hop longer after two
        right answers in a row and one hop shorter after a wrong one (it settles where 70.7% are right); QUEST+ asks for
        the k whose answer is expected to narrow the threshold most. The threshold is the longest story a participant
        answers mostly right.
      </p>
    </OptionGroup>
  );
}

/** A paraphrase study's settings: which clauses, how many, how long a story. */
export function ParaphraseSettings() {
  return (
    <OptionGroup
      legend="Clauses to paraphrase"
      fields={['studyId', 'seed', 'clauseKs', 'clauseGenders', 'clausesPerParticipant', 'minWords', 'maxWords']}
      testId="study-paraphrase-settings"
    >
      <Check
        field="favourUncovered"
        label={STUDY_OPTIONS.favourUncovered.label}
        hint={STUDY_OPTIONS.favourUncovered.help}
      />
    </OptionGroup>
  );
}

/** A review study's settings, and its stories: from the results server, or embedded from a file. */
export function ReviewSettings() {
  const stories = useStudyDesigner((s) => s.form.reviewStories);
  const studyId = useStudyDesigner((s) => s.form.studyId);
  return (
    <OptionGroup
      legend="Stories to review"
      fields={['studyId', 'seed', 'reviewsPerStory', 'reviewsPerParticipant', 'sourceStudy']}
      testId="study-review-settings"
    >
      <p className="hint">
        With the results server (under “Where results go”), name the paraphrase study registered there: each participant
        is handed stories it has collected, fewest reviews first, never their own. Without it (JATOS, files), embed the
        stories of a results export instead; they travel in the link. A preview shows a live review study’s screens only
        with embedded stories (it has no session to ask the server with).
      </p>
      <StoriesInput count={stories.length} studyId={studyId} />
    </OptionGroup>
  );
}

/** Loading, counting, saving and clearing the embedded stories. */
function StoriesInput({ count, studyId }: { count: number; studyId: string }) {
  const id = useId();
  const setField = useStudyDesigner((s) => s.setField);
  const setLoadError = useStudyDesigner((s) => s.setStoriesError);
  const error = useStudyDesigner((s) => s.storiesError);
  const stories = useStudyDesigner((s) => s.form.reviewStories);
  return (
    <div className="sd-field sd-wide sd-stories" data-field="reviewStories">
      <label htmlFor={id}>{STUDY_OPTIONS.reviewStories.label}: a results export (.csv, .json) or a stories file</label>
      <input
        id={id}
        name="reviewStories"
        type="file"
        accept=".csv,.json,text/csv,application/json"
        data-testid="study-stories-load"
        aria-describedby={`${id}-count${error ? ` ${id}-error` : ''}`}
        onChange={async (e) => {
          const file = e.target.files?.[0];
          e.target.value = '';
          if (!file) return;
          if (file.size > 50_000_000) return setLoadError(`${file.name} is too large to read here.`);
          try {
            setField('reviewStories', readStoriesFile(file.name, await file.text()));
            setLoadError(null);
          } catch (err) {
            setLoadError((err as Error).message);
          }
        }}
      />
      <p id={`${id}-count`} className="hint" data-testid="study-stories-count">
        {count === 0
          ? 'No stories embedded.'
          : `${count} stor${count === 1 ? 'y' : 'ies'} embedded (paraphrases that passed the live checks).`}
      </p>
      {error && (
        <p id={`${id}-error`} className="sd-error" role="alert" data-testid="study-stories-error">
          {error}
        </p>
      )}
      {count > 0 && (
        <div className="sd-actions">
          <button
            type="button"
            data-testid="study-stories-download"
            onClick={() =>
              saveFile([`${JSON.stringify(stories, null, 2)}\n`], storiesFileName(studyId), 'application/json')
            }
          >
            Stories file (.json) for the command line
          </button>
          <button type="button" className="sd-small" onClick={() => setField('reviewStories', [])}>
            Remove the stories
          </button>
        </div>
      )}
      <GroupProblem input="reviewStories" />
    </div>
  );
}
