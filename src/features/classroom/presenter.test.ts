import { describe, expect, it } from 'vitest';
import { generatePuzzle } from '../../core/puzzle/puzzle';
import { createRng } from '../../core/random/rng';
import { renderPlain } from '../../core/text/plain';
import { classroomBeats } from '../../state/classroom';
import { presenterView } from './presenter';

describe('classroom beats', () => {
  it('tells the sentences, asks, answers, then walks the proof', () => {
    const p = generatePuzzle({ seed: 9, k: 3, task: 2 });
    const story = renderPlain(p, 'test', createRng(p.seed, 'text'));
    const beats = classroomBeats(p, story);
    expect(beats).toHaveLength(story.sentences.length + 2 + p.proof.length);
    expect(presenterView(p, story, -1)).toMatchObject({
      sentences: 0,
      question: false,
      answer: false,
      proofStep: null,
    });
    const n = story.sentences.length;
    expect(presenterView(p, story, n - 1)).toMatchObject({ sentences: n, question: false });
    expect(presenterView(p, story, n)).toMatchObject({ question: true, answer: false });
    expect(presenterView(p, story, n + 1)).toMatchObject({ answer: true, proofStep: null });
    expect(presenterView(p, story, beats.length - 1)).toMatchObject({ proofStep: p.proof.length - 1 });
  });

  it('shows no proof step before the answer', () => {
    const p = generatePuzzle({ seed: 21, k: 5, task: 1 });
    const story = renderPlain(p, 'test', createRng(p.seed, 'text'));
    const total = classroomBeats(p, story).length;
    for (let c = -1; c < total; c++) {
      const v = presenterView(p, story, c);
      if (!v.answer) expect(v.proofStep).toBeNull();
    }
  });
});
