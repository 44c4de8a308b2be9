import { useId, useMemo } from 'react';
import type { Puzzle } from '../../core/puzzle/puzzle';
import { selectProofOpen, selectProofStep, selectRevealed } from '../../state/selectors';
import { useStore } from '../../state/useStore';
import { type ProofNode, proofTree, ruleWords } from '../../ui/puzzle/proof';
import { Relation } from '../../ui/puzzle/Relation';
import { LabelVerdictNote } from './LabelVerdictNote';
import { labelVerdict, stepRule } from './verdict';
import { PanelHead } from './PanelHead';
import './proof.css';

const actions = () => useStore.getState();

function TreeNode({
  puzzle,
  node,
  current,
  revealed,
}: {
  puzzle: Puzzle;
  node: ProofNode;
  current: number | null;
  revealed: boolean;
}) {
  const from = puzzle.entities[node.triple.from];
  const to = puzzle.entities[node.triple.to];
  if (node.step === null) {
    return (
      <li className="proof-leaf">
        <Relation from={from} to={to} word={node.triple.word} /> <span className="tag">stated</span>
      </li>
    );
  }
  const i = node.step;
  const step = puzzle.proof[i]!;
  const masked = i === 0 && !revealed;
  const state = current === null ? 'idle' : i === current ? 'current' : i < current ? 'done' : 'todo';
  const rule = stepRule(step);
  return (
    <li className={`proof-node proof-node--${state}`}>
      <button
        type="button"
        className="proof-step"
        data-testid="proof-step"
        data-step={i}
        data-state={state}
        data-rule={rule.kind}
        aria-pressed={i === current}
        onClick={() => actions().setProofStep(i === current ? null : i)}
      >
        <span className="proof-step__n">Step {i + 1}</span>
        <span className="proof-step__head">
          <Relation from={from} to={to} word={masked ? '?' : step.head.word} />
        </span>
        <span className="proof-step__rule">{ruleWords(step, masked ? '?' : undefined)}</span>
        {rule.kind === 'assumption' && (
          <span className="tag tag--warn" data-testid="proof-step-assumption">
            assumes {rule.words}
          </span>
        )}
        {rule.kind === 'none' && (
          <span className="tag tag--warn" data-testid="proof-step-no-rule">
            no rule gives this
          </span>
        )}
      </button>
      <ul>
        {node.children.map((c, j) => (
          <TreeNode key={j} puzzle={puzzle} node={c} current={current} revealed={revealed} />
        ))}
      </ul>
    </li>
  );
}

/** The rule stepper: previous, where we are, next. */
function Stepper({ n, current }: { n: number; current: number | null }) {
  return (
    <div className="stepper" role="group" aria-label="Step through the proof">
      <button
        type="button"
        className="button"
        data-testid="proof-prev"
        onClick={() => actions().stepProof(-1)}
        disabled={current === null}
      >
        ← Previous rule
      </button>
      <span className="stepper__pos" aria-live="polite" data-testid="proof-position">
        {current === null ? `${n} rule${n === 1 ? '' : 's'}` : `Rule ${current + 1} of ${n}`}
      </span>
      <button
        type="button"
        className="button"
        data-testid="proof-next"
        onClick={() => actions().stepProof(1)}
        disabled={current === n - 1}
      >
        Next rule →
      </button>
    </div>
  );
}

/**
 * The backward-chaining proof as a tree, steppable one rule at a time. Its intermediate relations
 * give the answer away, so the panel stays closed until the answer is revealed or the reader asks
 * for the proof; even then the query's own word stays hidden until the reveal, so the tree can be
 * read as hints.
 */
export function ProofPanel({ puzzle }: { puzzle: Puzzle }) {
  const current = useStore(selectProofStep);
  const revealed = useStore(selectRevealed);
  const open = useStore(selectProofOpen);
  const tree = useMemo(() => proofTree(puzzle), [puzzle]);
  const verdict = useMemo(() => labelVerdict(puzzle), [puzzle]);
  const bodyId = useId();
  const n = puzzle.proof.length;
  return (
    <section className="panel panel--proof" aria-labelledby="proof-heading">
      <PanelHead
        id="proof-heading"
        title="Proof"
        tools={
          <>
            {open && n > 0 && verdict.proofShown && <Stepper n={n} current={current} />}
            {!revealed && (
              <button
                type="button"
                className="button button--small"
                data-testid="show-proof"
                aria-expanded={open}
                aria-controls={bodyId}
                onClick={() => actions().showProof(!open)}
              >
                {open ? 'Hide proof' : 'Show proof'}
              </button>
            )}
          </>
        }
      />
      <div id={bodyId}>
        {!open ? (
          <p className="hint" data-testid="proof-closed">
            The proof gives the answer away, so it stays hidden until you reveal the answer or choose Show proof.
          </p>
        ) : !verdict.proofShown ? (
          <>
            <p className="hint" data-testid="proof-withheld">
              The row’s proof (its proof_state column) is not drawn as a proof: the facts do not entail its label.
            </p>
            <LabelVerdictNote verdict={verdict} testId="proof-verdict" />
          </>
        ) : tree ? (
          <>
            {!verdict.trusted && <LabelVerdictNote verdict={verdict} testId="proof-verdict" />}
            <p className="hint">
              Backward chaining: each step splits a relation into two that compose to it, until only stated facts
              remain. Select a step to light the facts it joins in the drawing.
            </p>
            <ul className="proof-tree" data-testid="proof-tree">
              <TreeNode puzzle={puzzle} node={tree} current={current} revealed={revealed} />
            </ul>
          </>
        ) : (
          <p className="hint">With k = 1 there is nothing to chain: the story states the answer in one fact.</p>
        )}
      </div>
    </section>
  );
}
