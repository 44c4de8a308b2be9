import type { KeyboardEvent } from 'react';
import { PREDICATES, PREDICATE_WORDS, type RelationWord } from '../../core/kinship/relations';
import './puzzle.css';

/** The twenty relation words in the grid's order: each predicate's pair (son, daughter) side by side. */
export const ANSWER_WORDS: readonly RelationWord[] = PREDICATES.flatMap(
  (p) => PREDICATE_WORDS[p] as readonly RelationWord[],
);

/** Four columns keep each male/female pair side by side (the grids' stylesheets agree). */
const COLUMNS = 4;
const MOVES: Record<string, number> = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: COLUMNS, ArrowUp: -COLUMNS };

export interface AnswerGridProps {
  /** The word picked so far (pressed), or null. */
  readonly picked: RelationWord | null;
  readonly onPick: (word: RelationWord) => void;
  /** Once the answer is out: the right word is marked ✓ and a wrong pick ✗. Null while hidden. */
  readonly answer?: RelationWord | null;
  /** The grid's own class (its layout), e.g. `answers__grid`. */
  readonly className: string;
  /** Arrow keys move the focus between words (for a dialog that is driven by the keyboard). */
  readonly arrowKeys?: boolean;
}

/** The relation answer picker: one button per relation word (`data-testid="answer-option"`). */
export function AnswerGrid({ picked, onPick, answer = null, className, arrowKeys = false }: AnswerGridProps) {
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const move = MOVES[e.key];
    if (move === undefined) return;
    const buttons = [...e.currentTarget.querySelectorAll<HTMLButtonElement>('button')];
    const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (i < 0) return;
    e.preventDefault();
    buttons[(i + move + buttons.length) % buttons.length]?.focus();
  };
  return (
    <div className={className} onKeyDown={arrowKeys ? onKeyDown : undefined}>
      {ANSWER_WORDS.map((w) => {
        const right = answer !== null && w === answer;
        const wrong = answer !== null && picked === w && w !== answer;
        return (
          <button
            key={w}
            type="button"
            className={`answer${picked === w ? ' answer--picked' : ''}${right ? ' answer--right' : ''}${wrong ? ' answer--wrong' : ''}`}
            data-testid="answer-option"
            data-relation={w}
            aria-pressed={picked === w}
            onClick={() => onPick(w)}
          >
            {right && <span aria-hidden="true">✓ </span>}
            {wrong && <span aria-hidden="true">✗ </span>}
            {w}
          </button>
        );
      })}
    </div>
  );
}
