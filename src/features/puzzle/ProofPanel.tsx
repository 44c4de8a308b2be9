import { useMemo } from 'react';
import type { Puzzle } from '../../core/puzzle/puzzle';
import { EntityName } from '../../graph';
import { type ProofNode, proofTree, selectProofStep, selectRevealed, useStore } from '../../state';

const actions = () => useStore.getState();

function Rel({ puzzle, node, word }: { puzzle: Puzzle; node: ProofNode; word: string }) {
  const a = puzzle.entities[node.triple.from];
  const b = puzzle.entities[node.triple.to];
  return (
    <>
      <EntityName name={b?.name ?? '?'} gender={b?.gender} /> is <EntityName name={a?.name ?? '?'} gender={a?.gender} />
      's <strong>{word}</strong>
    </>
  );
}

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
  if (node.step === null) {
    return (
      <li className="proof-leaf">
        <Rel puzzle={puzzle} node={node} word={node.triple.word} /> <span className="tag">stated</span>
      </li>
    );
  }
  const i = node.step;
  const step = puzzle.proof[i]!;
  const masked = i === 0 && !revealed;
  const state = current === null ? 'idle' : i === current ? 'current' : i < current ? 'done' : 'todo';
  return (
    <li className={`proof-node proof-node--${state}`}>
      <button
        type="button"
        className="proof-step"
        data-testid="proof-step"
        data-step={i}
        data-state={state}
        aria-pressed={i === current}
        onClick={() => actions().setProofStep(i === current ? null : i)}
      >
        <span className="proof-step__n">Step {i + 1}</span>
        <span className="proof-step__head">
          <Rel puzzle={puzzle} node={node} word={masked ? '?' : step.head.word} />
        </span>
        <span className="proof-step__rule">
          {step.body[0].word} ∘ {step.body[1].word} ⇒ {masked ? '?' : step.head.word}
        </span>
      </button>
      <ul>
        {node.children.map((c, j) => (
          <TreeNode key={j} puzzle={puzzle} node={c} current={current} revealed={revealed} />
        ))}
      </ul>
    </li>
  );
}

/**
 * The backward-chaining proof as a tree, steppable one rule at a time. The query's own word stays
 * hidden until the answer is revealed, so the tree can be read as hints.
 */
export function ProofPanel({ puzzle }: { puzzle: Puzzle }) {
  const current = useStore(selectProofStep);
  const revealed = useStore(selectRevealed);
  const tree = useMemo(() => proofTree(puzzle), [puzzle]);
  const n = puzzle.proof.length;
  return (
    <section className="panel panel--proof" aria-labelledby="proof-heading">
      <div className="panel__head">
        <h2 id="proof-heading" className="panel__title">
          Proof
        </h2>
        {n > 0 && (
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
        )}
      </div>
      {tree ? (
        <>
          <p className="hint">
            Backward chaining: each step splits a relation into two that compose to it, until only stated facts remain.
            Select a step to light the facts it joins in the drawing.
          </p>
          <ul className="proof-tree" data-testid="proof-tree">
            <TreeNode puzzle={puzzle} node={tree} current={current} revealed={revealed} />
          </ul>
        </>
      ) : (
        <p className="hint">With k = 1 there is nothing to chain: the story states the answer in one fact.</p>
      )}
    </section>
  );
}
