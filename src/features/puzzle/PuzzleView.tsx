import { useState } from 'react';
import { selectGraphWide, selectPuzzle, selectStatus, selectStory } from '../../state/selectors';
import { useStore } from '../../state/useStore';
import './explorer.css';
import { Controls } from './Controls';
import { GraphPanel } from './GraphPanel';
import { type AttentionView, ModelPanel } from './ModelPanel';
import { ProofPanel } from './ProofPanel';
import { StatusRegion } from './StatusRegion';
import { StoryPanel } from './StoryPanel';

/** Shown until the first puzzle arrives (its own component: the view does not follow the status). */
function FirstPuzzlePlaceholder() {
  const status = useStore(selectStatus);
  return status === 'error' ? null : (
    <p className="placeholder" aria-busy="true">
      Generating the first puzzle…
    </p>
  );
}

/** The explorer's start page: settings, then the story, the family drawing and the proof. */
export function PuzzleView() {
  const puzzle = useStore(selectPuzzle);
  const story = useStore(selectStory);
  const wide = useStore(selectGraphWide);
  // The models panel's attention, drawn by the graph panel.
  const [attention, setAttention] = useState<AttentionView | null>(null);
  return (
    <div className="puzzle-view">
      <h1 className="visually-hidden" tabIndex={-1} data-view-heading>
        Puzzle explorer
      </h1>
      <Controls />
      <StatusRegion />
      {puzzle && story ? (
        <div className={`explorer${wide ? ' explorer--wide' : ''}`}>
          <StoryPanel puzzle={puzzle} story={story} />
          <GraphPanel puzzle={puzzle} attention={attention} />
          <ProofPanel puzzle={puzzle} />
          <ModelPanel puzzle={puzzle} story={story} onAttention={setAttention} />
        </div>
      ) : (
        <FirstPuzzlePlaceholder />
      )}
    </div>
  );
}
