import type { Puzzle } from '../../core/puzzle/puzzle';
import { ruleWords, tripleWords } from './proof';
import './puzzle.css';

/**
 * One proof step as a sentence: "Kelly is Anne's daughter and Tom is Kelly's son, so Tom is
 * Anne's grandson (daughter ∘ son ⇒ grandson)". It states the step's conclusion: show it only once
 * the answer is out or the proof was asked for.
 */
export function StepSentence({
  puzzle,
  step,
  ruleClassName,
}: {
  puzzle: Puzzle;
  step: Puzzle['proof'][number];
  ruleClassName: string;
}) {
  return (
    <>
      {tripleWords(puzzle, step.body[0])} and {tripleWords(puzzle, step.body[1])}, so {tripleWords(puzzle, step.head)}{' '}
      <span className={ruleClassName}>({ruleWords(step)})</span>
    </>
  );
}
