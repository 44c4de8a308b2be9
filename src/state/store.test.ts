import { beforeEach, describe, expect, it } from 'vitest';
import { generatePuzzle } from '../core/puzzle/puzzle';
import { setPuzzleService } from './service';
import { createAppStore } from './store';
import { createMainThreadService } from './testing';
import { startUrlSync } from './urlSync';

let svc: ReturnType<typeof createMainThreadService>;
beforeEach(() => {
  svc = createMainThreadService();
  setPuzzleService(svc);
});

describe('the store', () => {
  it('loads the puzzle its settings describe, with a story', async () => {
    const store = createAppStore();
    store.setState({ settings: { ...store.getState().settings, seed: '1234', k: 3, task: 1 } });
    const p = await store.getState().requestPuzzle();
    expect(p).toEqual(generatePuzzle({ seed: '1234', k: 3, task: 1 }));
    const s = store.getState();
    expect(s.status).toBe('ready');
    expect(s.story!.sentences).toHaveLength(3);
    expect(s.origin).toBe('generated');
  });

  it('new puzzle counts the seed up and resets the per-puzzle view', async () => {
    const store = createAppStore();
    store.setState({ settings: { ...store.getState().settings, seed: '5' } });
    await store.getState().requestPuzzle();
    store.getState().pickGuess('son');
    store.getState().stepProof(1);
    store.getState().newPuzzle();
    await until(() => store.getState().puzzle?.seed === '6');
    const s = store.getState();
    expect(s.settings.seed).toBe('6');
    expect(s.revealed).toBe(false);
    expect(s.guess).toBeNull();
    expect(s.proofStep).toBeNull();
  });

  it('keeps the old puzzle and reports impossible settings', async () => {
    const store = createAppStore();
    await store.getState().requestPuzzle();
    const before = store.getState().puzzle;
    store.getState().setSettings({ k: 10 });
    store.getState().setFamily({ maxChild: 1, minChild: 1 });
    await until(() => store.getState().status === 'error');
    expect(store.getState().error).toMatch(/^k = 10 needs 11 different people/);
    expect(store.getState().puzzle).toBe(before);
  });

  it('applies only the latest of overlapping requests', async () => {
    setPuzzleService(createMainThreadService(5));
    const store = createAppStore();
    store.setState({ settings: { ...store.getState().settings, seed: '1' } });
    const first = store.getState().requestPuzzle();
    store.setState({ settings: { ...store.getState().settings, seed: '2' } });
    const second = store.getState().requestPuzzle();
    expect(await first).toBeNull();
    expect((await second)!.seed).toBe('2');
    expect(store.getState().puzzle!.seed).toBe('2');
  });

  it('cancel keeps the current puzzle and says so', async () => {
    const store = createAppStore();
    await store.getState().requestPuzzle();
    const before = store.getState().puzzle;
    const slow = createMainThreadService(30);
    let cancelled = 0;
    setPuzzleService({ ...slow, cancel: () => cancelled++ });
    store.setState({ settings: { ...store.getState().settings, seed: 'slow' } });
    const pending = store.getState().requestPuzzle();
    expect(store.getState().status).toBe('loading');
    store.getState().cancelRequest();
    expect(cancelled).toBe(1);
    expect(await pending).toBeNull();
    expect(store.getState().puzzle).toBe(before);
    expect(store.getState().status).toBe('ready');
    expect(store.getState().error).toMatch(/cancelled/);
  });

  it('shows an external puzzle and writes its story when none is given', async () => {
    const store = createAppStore();
    const p = generatePuzzle({ seed: 'ext', k: 4, task: 3 });
    await store.getState().showExternal(p);
    expect(store.getState().origin).toBe('external');
    expect(store.getState().puzzle).toBe(p);
    expect(store.getState().story!.sentences.length).toBe(p.facts.length);
  });

  it('steps through the proof within bounds', async () => {
    const store = createAppStore();
    store.setState({ settings: { ...store.getState().settings, seed: '3', k: 4 } });
    await store.getState().requestPuzzle();
    const s = () => store.getState();
    s().stepProof(-1);
    expect(s().proofStep).toBeNull();
    for (let i = 0; i < 10; i++) s().stepProof(1);
    expect(s().proofStep).toBe(2);
    for (let i = 0; i < 10; i++) s().stepProof(-1);
    expect(s().proofStep).toBeNull();
  });

  it('classroom: steps, reveals, restarts', async () => {
    const store = createAppStore();
    store.setState({ settings: { ...store.getState().settings, seed: '3', k: 3 } });
    await store.getState().requestPuzzle();
    const s = () => store.getState();
    s().classroomStep(1);
    expect(s().classroomCursor).toBe(0);
    s().classroomReveal();
    expect(s().classroomCursor).toBe(s().story!.sentences.length + 1);
    for (let i = 0; i < 20; i++) s().classroomStep(1);
    expect(s().classroomCursor).toBe(s().story!.sentences.length + 1 + s().puzzle!.proof.length);
    s().setClassGuess('aunt');
    expect(s().classGuess).toBe('aunt');
    s().classroomRestart();
    expect(s().classroomCursor).toBe(-1);
  });
});

describe('URL sync', () => {
  it('reads the URL, loads, and writes changes back as history entries', async () => {
    const win = fakeWindow('/?seed=77&k=3&task=2#/classroom');
    const store = createAppStore();
    const stop = startUrlSync(store, win as unknown as Window);
    expect(store.getState().route).toBe('classroom');
    await until(() => store.getState().status === 'ready');
    expect(store.getState().puzzle!.seed).toBe('77');
    expect(store.getState().puzzle!.task).toBe(2);
    store.getState().newPuzzle();
    await until(() => win.location.search === '?seed=78&k=3&task=2');
    expect(win.location.hash).toBe('#/classroom');
    expect(win.pushes).toBe(1);
    store.getState().setRoute('puzzle');
    expect(win.location.hash).toBe('');
    stop();
  });

  it('writes a chosen seed into a bare URL without a history entry', () => {
    const win = fakeWindow('/');
    const store = createAppStore();
    startUrlSync(store, win as unknown as Window)();
    expect(win.location.search).toMatch(/^\?seed=\d+&k=2&task=1$/);
    expect(win.pushes).toBe(0);
  });
});

async function until(cond: () => boolean, ms = 5000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 2));
  }
}

function fakeWindow(url: string) {
  const u = new URL(url, 'http://x');
  const location = { pathname: u.pathname, search: u.search, hash: u.hash };
  const set = (next: string) => {
    const n = new URL(next, 'http://x');
    Object.assign(location, { pathname: n.pathname, search: n.search, hash: n.hash });
  };
  const w = {
    location,
    pushes: 0,
    history: {
      pushState: (_: unknown, __: string, next: string) => {
        w.pushes++;
        set(next);
      },
      replaceState: (_: unknown, __: string, next: string) => set(next),
    },
    addEventListener: () => {},
    removeEventListener: () => {},
  };
  return w;
}
