import { beforeEach, describe, expect, it } from 'vitest';
import { selectProofOpen } from './selectors';
import { setPuzzleService } from './service';
import { createAppStore } from './store';
import { createMainThreadService } from './testing';

beforeEach(() => setPuzzleService(createMainThreadService()));

describe('the proof stays closed until asked for', () => {
  it('opens on "show proof" or on the reveal, and closes again with a new puzzle', async () => {
    const store = createAppStore();
    store.setState({ settings: { ...store.getState().settings, seed: '3', k: 4 } });
    await store.getState().requestPuzzle();
    const s = () => store.getState();
    expect(selectProofOpen(s())).toBe(false);
    s().showProof(true);
    expect(selectProofOpen(s())).toBe(true);
    s().stepProof(1);
    s().showProof(false);
    expect(selectProofOpen(s())).toBe(false);
    expect(s().proofStep).toBeNull();

    s().showProof(true);
    s().newPuzzle();
    await new Promise<void>((done) => {
      const stop = store.subscribe((st) => {
        if (st.puzzle?.seed !== '4') return;
        stop();
        done();
      });
    });
    expect(selectProofOpen(s())).toBe(false);

    s().reveal();
    expect(selectProofOpen(s())).toBe(true);
  });
});
