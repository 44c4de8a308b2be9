import { useEffect, useState, useSyncExternalStore, type KeyboardEvent, type ReactNode } from 'react';
import type { StudyKind } from '../../study/definition/vocabulary';
import { type AnyTrialScreen, isTrialScreen, type KindScreens, kindSpec, STUDY_KINDS } from '../../study/kinds';
import { SUBMIT_MARK, type StudyRun } from '../../study/run/run';
import { bootOnce, type Boot, type RunEnv } from './boot';
import { CollectExamples } from './CollectExamples';
import { Completion } from './Completion';
import { ConsentScreen, DeclinedScreen, ResumeScreen } from './Consent';
import { Heading } from './Heading';
import { limitSentences } from './limits';
import { Markdown } from './Markdown';
import { RefusalNotice, ResumeCodeNote, TimeUpNotice } from './Notices';
import { ParaphraseTrial } from './ParaphraseTrial';
import { Progress } from './Progress';
import { ReviewTrial } from './ReviewTrial';
import type { TrialProps } from './TrialBar';
import { TrialView } from './TrialView';
import './participant.css';

/** What a trial screen of any kind is given here: its props, and the run's environment to pick them from. */
type TrialViewProps<S> = TrialProps<S> & { readonly env: RunEnv };

/** The screen of each kind's trial. */
const TRIAL_VIEWS: { readonly [K in StudyKind]: (props: TrialViewProps<KindScreens[K]>) => ReactNode } = {
  solve: (p) => (
    <TrialView
      run={p.run}
      state={p.state}
      puzzle={p.env.puzzles.get(p.state.trial.item.puzzleId)}
      onError={p.onError}
      notices={p.notices}
    />
  ),
  paraphrase: (p) => <ParaphraseTrial run={p.run} state={p.state} onError={p.onError} notices={p.notices} />,
  review: (p) => <ReviewTrial run={p.run} state={p.state} onError={p.onError} notices={p.notices} />,
  adaptive: (p) => (
    <TrialView
      run={p.run}
      state={p.state}
      puzzle={p.env.puzzles.get(p.state.trial.item.puzzleId)}
      onError={p.onError}
      notices={p.notices}
    />
  ),
};

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

function StudyError({ text }: { text: string }) {
  return (
    <section className="study-screen" role="alert">
      <Heading>This study cannot start</Heading>
      <p data-testid="study-error">{text}</p>
    </section>
  );
}

const started = new WeakSet<StudyRun>();

/** Opens and prepares the run once (StrictMode mounts twice in development). */
function start(run: StudyRun, fail: (e: unknown) => void): void {
  if (started.has(run)) return;
  started.add(run);
  void (async () => {
    if (await run.open()) await run.prepare();
  })().catch(fail);
}

/** The participant's page: boots the run, then shows whatever screen the run is on. */
export function ParticipantApp() {
  const [boot, setBoot] = useState<Boot | null>(null);
  // A failure after the link was accepted (storage, the generator): not a link error.
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void bootOnce().then((b) => {
      if (!live) return;
      setBoot(b);
      if (b.kind === 'ready') start(b.run, (e) => setFailure(message(e)));
    });
    return () => {
      live = false;
    };
  }, []);

  return (
    <main className="study" lang="en">
      {boot?.kind === 'ready' && boot.env.preview && (
        <p className="study-preview" data-testid="preview-banner">
          Preview — nothing is sent and this run is kept apart from participants’ runs.
        </p>
      )}
      {boot?.kind === 'ready' && boot.env.memoryOnly && (
        <p className="study-note" role="status">
          This browser does not let the page store your answers; keep this tab open until the end.
        </p>
      )}
      {failure ? (
        <section className="study-screen" role="alert">
          <Heading>Something went wrong</Heading>
          <p data-testid="study-failure">{failure}</p>
          <p>The answers recorded so far are kept in this browser. Reload the page to carry on.</p>
        </section>
      ) : boot === null ? (
        <p role="status">Loading the study…</p>
      ) : boot.kind === 'error' ? (
        <StudyError text={boot.message} />
      ) : (
        <RunView run={boot.run} env={boot.env} onError={(e) => setFailure(message(e))} />
      )}
    </main>
  );
}

function RunView({ run, env, onError }: { run: StudyRun; env: RunEnv; onError: (e: unknown) => void }) {
  const state = useSyncExternalStore(
    (l) => run.subscribe(l),
    () => run.state,
  );

  useEffect(() => {
    const onVisibility = () => run.visibility(document.visibilityState === 'hidden');
    // A paraphrase's draft and the trial's time on screen are written when the page goes (also as typing pauses, and every few seconds).
    const onLeave = () => void run.leave();
    document.addEventListener('visibilitychange', onVisibility);
    window.addEventListener('pagehide', onLeave);
    return () => {
      document.removeEventListener('visibilitychange', onVisibility);
      window.removeEventListener('pagehide', onLeave);
    };
  }, [run]);

  // answer-to-next is measured only from one trial straight to the next; feedback and breaks wait for the participant.
  useEffect(() => {
    if (state.kind !== 'trial') performance.clearMarks(SUBMIT_MARK);
  }, [state.kind]);

  const go = () => void run.continue().catch(onError);
  // Said on every screen of the run from the instructions to the last trial: a destination refused an answer.
  const refusal = <RefusalNotice run={run} pageUrl={env.pageUrl} />;
  const timeUp = (s: { readonly timeUp?: boolean }) => (s.timeUp ? <TimeUpNotice kind={env.def.kind} /> : null);
  const notices = (s: { readonly timeUp?: boolean }): ReactNode => (
    <>
      {refusal}
      {timeUp(s)}
    </>
  );
  // Enter continues from anywhere on the screen (a focused button acts on Enter itself).
  const enterContinues = (e: KeyboardEvent<HTMLElement>) => {
    const target = e.target as HTMLElement;
    if (e.key !== 'Enter' || target.closest('button, a, textarea, input, select')) return;
    e.preventDefault();
    go();
  };
  if (isTrialScreen(state)) {
    const View = TRIAL_VIEWS[env.def.kind] as (props: TrialViewProps<AnyTrialScreen>) => ReactNode;
    return <View run={run} state={state} env={env} onError={onError} notices={notices(state)} />;
  }
  switch (state.kind) {
    case 'loading':
      return <p role="status">Loading the study…</p>;
    case 'error':
      return <StudyError text={state.message} />;
    case 'blocked':
      return (
        <section className="study-screen" role="alert">
          <Heading>This session cannot be continued here</Heading>
          <p data-testid="study-blocked">{state.reason}</p>
        </section>
      );
    case 'preparing':
      return (
        <p role="status" className="study-preparing" data-testid="preparing">
          Preparing puzzles {Math.min(state.done + 1, state.total)} of {state.total}
        </p>
      );
    case 'fetching':
      return (
        <WaitingScreen
          testId="fetching"
          title="Getting the stories to review…"
          notYet="No stories yet"
          state={state}
          onRetry={() => run.retryConnection()}
        />
      );
    case 'no-items':
      return (
        <section className="study-screen" role="alert">
          <Heading>No story to review right now</Heading>
          <p data-testid="review-no-items">
            Every story collected so far has its reviews, or was written by you. Nothing was recorded. Please come back
            later and reload this page.
            {env.prolific && ' If you cannot wait, please return the study on Prolific (“Cancel participation”).'}
          </p>
        </section>
      );
    case 'consent':
      return <ConsentScreen run={run} env={env} onError={onError} />;
    case 'connecting':
      return (
        <WaitingScreen
          testId="connecting"
          title="Connecting to the study server…"
          notYet="Not connected yet"
          state={state}
          onRetry={() => run.retryConnection()}
          onCode={run.takesResumeCode ? () => run.enterResumeCode() : undefined}
        />
      );
    case 'refused':
      return (
        <section className="study-screen" role="alert">
          <Heading>This study cannot be taken now</Heading>
          <p data-testid="study-refused">{state.message}</p>
          <p>
            Nothing was recorded.
            {/* The server's closed / full messages already say how to return the study. */}
            {env.prolific &&
              !/prolific/i.test(state.message) &&
              ' Please return the study on Prolific (“Cancel participation” on its page).'}
          </p>
        </section>
      );
    case 'declined':
      return <DeclinedScreen run={run} env={env} />;
    case 'resume':
      return <ResumeScreen run={run} problem={state.problem} onError={onError} />;
    case 'instructions': {
      const limits = run.condition ? limitSentences(run.condition, env.def.kind, env.def.practice > 0) : [];
      return (
        <section className="study-screen">
          <Heading>Instructions</Heading>
          {refusal}
          <Markdown text={env.def.instructionsText} />
          {limits.length > 0 && (
            <p className="study-limits" data-testid="time-limits">
              {limits.join(' ')}
            </p>
          )}
          {kindSpec(env.def.kind).collects && (
            <>
              <h2 className="collect-subtitle">Examples</h2>
              <CollectExamples testId="instructions-examples" />
            </>
          )}
          <ResumeCodeNote run={run} />
          <ContinueButton onClick={go}>Start</ContinueButton>
        </section>
      );
    }
    case 'feedback':
      return (
        <section className="study-screen" aria-live="polite" onKeyDown={enterContinues}>
          <Heading>{state.correct ? 'Right' : state.timedOut ? 'Time is up' : 'Not quite'}</Heading>
          {refusal}
          <p data-testid="practice-feedback" className={state.correct ? 'verdict verdict--right' : 'verdict'}>
            {state.correct
              ? `Right: ${state.content.queryB} is ${state.content.queryA}’s ${state.content.gold}.`
              : `${state.timedOut ? 'The time ran out.' : `You answered “${state.response}”.`} The right answer is “${state.content.gold}”: ${state.content.queryB} is ${state.content.queryA}’s ${state.content.gold}.`}
          </p>
          <ContinueButton onClick={go}>Continue</ContinueButton>
          <p className="study-hint">Press Enter to continue.</p>
        </section>
      );
    case 'break':
      return (
        <section className="study-screen">
          <Heading>Take a short break</Heading>
          {notices(state)}
          <Progress done={state.done} total={state.total} what={STUDY_KINDS[env.def.kind].words[1]} />
          <p>Rest for a moment if you like. Continue when you are ready.</p>
          <ResumeCodeNote run={run} />
          <ContinueButton onClick={go}>Continue</ContinueButton>
        </section>
      );
    case 'complete':
      return (
        <Completion
          run={run}
          env={env}
          rows={state.rows}
          session={state.session}
          timedOut={state.timedOut}
          timeUp={state.timeUp === true}
          downloaded={state.downloaded}
        />
      );
  }
}

/**
 * A screen that waits for the study server (an issued session, the stories to review): the
 * problem once the page has tried a few times, and a retry. `testId` names the screen; its
 * problem and retry are `<testId>-problem` and `<testId>-retry`.
 */
function WaitingScreen({
  testId,
  title,
  notYet,
  state,
  onRetry,
  onCode,
}: {
  testId: string;
  title: string;
  notYet: string;
  state: { readonly problem: string | null; readonly waiting: boolean };
  onRetry: () => void;
  /** Offered with the problem: continue a session from another device with its resume code. */
  onCode?: () => void;
}) {
  return (
    <section className="study-screen" data-testid={testId} aria-live="polite">
      <Heading>{title}</Heading>
      {state.problem === null ? (
        <p role="status">Please wait a moment.</p>
      ) : (
        <>
          <p role="status" data-testid={`${testId}-problem`}>
            {notYet}: {state.problem.replace(/\.$/, '')}.{' '}
            {state.waiting
              ? 'The page keeps trying; you can also try again now.'
              : 'Please check your connection, then try again.'}
          </p>
          <button type="button" className="button button--primary" data-testid={`${testId}-retry`} onClick={onRetry}>
            Try again
          </button>
          {onCode && (
            <p>
              <button type="button" className="button" data-testid={`${testId}-code`} onClick={onCode}>
                I have a resume code
              </button>
            </p>
          )}
        </>
      )}
      <p className="study-note">Nothing has been recorded yet.</p>
    </section>
  );
}

/** The button on to the next screen (Start, Continue). */
function ContinueButton({ onClick, children }: { onClick: () => void; children: ReactNode }) {
  return (
    <button type="button" className="button button--primary" data-testid="continue" onClick={onClick}>
      {children}
    </button>
  );
}
