import type { StudyDefinition } from '../../study/definition/definition';
import { storiesFileName } from '../../study/definition/commandLine';
import { kindSpec } from '../../study/kinds';
import { cliCommand, studySummary } from './form';
import { useStudyDesigner } from './store';

/** The planned sample and how it was chosen (the power planner's), when one was chosen. */
function PlannedSample() {
  const planned = useStudyDesigner((s) => s.plannedN);
  if (!planned) return null;
  return (
    <p data-testid="study-planned-n">
      <strong>Planned N: {planned.participants}.</strong> {planned.how}
    </p>
  );
}

/** The items per k and task, the counts and the time it takes; for a collection study, what each participant does. */
export function Summary({ def }: { def: StudyDefinition }) {
  const { summaryHeading, participantTask } = kindSpec(def.kind).designer;
  if (participantTask) {
    return (
      <section className="sd-panel" aria-labelledby="sd-summary" data-testid="study-summary">
        <h2 id="sd-summary">{summaryHeading}</h2>
        <p data-testid="study-summary-counts">{participantTask(def)}</p>
        <p className="hint">
          {def.conditions.length} condition{def.conditions.length === 1 ? '' : 's'} ({def.assignment} assignment).
        </p>
        <PlannedSample />
      </section>
    );
  }
  const s = studySummary(def);
  return (
    <section className="sd-panel" aria-labelledby="sd-summary" data-testid="study-summary">
      <h2 id="sd-summary">{summaryHeading}</h2>
      <p className="hint" id="sd-cells">
        Main items per story length k and task
      </p>
      <table className="sd-table" aria-describedby="sd-cells">
        <thead>
          <tr>
            <th scope="col">k</th>
            <th scope="col">task</th>
            <th scope="col">items</th>
          </tr>
        </thead>
        <tbody>
          {s.cells.map((c) => (
            <tr key={`${c.k}-${c.task}`}>
              <td>{c.k}</td>
              <td>{c.task}</td>
              <td>{c.items}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p data-testid="study-summary-counts">
        {s.main} main, {s.practice} practice, {s.checks} attention check{s.checks === 1 ? '' : 's'}:{' '}
        <strong>{s.trials} trials</strong>, about <strong>{s.minutes} minutes</strong>
      </p>
      <p className="hint">
        Estimate: 1.4 min per puzzle, the mean of the paper&apos;s time-limited crowd workers (1 min 23 s).{' '}
        {def.conditions.length} condition{def.conditions.length === 1 ? '' : 's'} ({def.assignment} assignment).
      </p>
      <PlannedSample />
    </section>
  );
}

/** The `npm run cli -- study link …` line that makes the same link. */
export function CliLine({ def }: { def: StudyDefinition }) {
  return (
    <section className="sd-panel" aria-labelledby="sd-cli">
      <h2 id="sd-cli">Same link from the command line</h2>
      <pre className="mono sd-cli" data-testid="study-cli">
        {cliCommand(def)}
      </pre>
      {kindSpec(def.kind).designer.storiesFile && def.reviewStories.length > 0 && (
        <p className="hint">
          The command reads the embedded stories from {storiesFileName(def.studyId)}: save it with “Stories file (.json)
          for the command line” under Stories to review.
        </p>
      )}
    </section>
  );
}
