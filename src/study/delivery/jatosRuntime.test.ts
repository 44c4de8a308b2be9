import { describe, expect, it, vi } from 'vitest';
import {
  JATOS_DECLINE_MESSAGE,
  jatosAborter,
  jatosEnder,
  jatosInputs,
  JatosError,
  loadJatos,
  type JatosApi,
} from './jatosRuntime';

describe('jatosInputs', () => {
  it('takes the token from the component input, the worker id and Prolific ids from the start URL', () => {
    const got = jatosInputs({
      componentJsonInput: { clutrrStudy: ' s1.abc.def ' },
      workerId: 42,
      urlQueryParameters: { STUDY_ID: 'st', SESSION_ID: 'se', condition: 'timed', participant: '3' },
    });
    expect(got).toEqual({
      token: 's1.abc.def',
      participantId: '42',
      prolificPid: '',
      prolificStudyId: 'st',
      prolificSessionId: 'se',
      condition: 'timed',
      participantNumber: 3,
      preview: false,
    });
  });

  it("keeps JATOS's worker id as the participant id when Prolific started the study", () => {
    const got = jatosInputs({
      componentJsonInput: { clutrrStudy: 't' },
      workerId: '7',
      urlQueryParameters: { PROLIFIC_PID: 'pp' },
    });
    expect([got.participantId, got.prolificPid]).toEqual(['7', 'pp']);
  });

  it.each([{}, { clutrrStudy: '' }, { clutrrStudy: 5 }, null, 'x'])(
    'refuses a component without the token (%j)',
    (input) => {
      expect(() => jatosInputs({ componentJsonInput: input, workerId: 1, urlQueryParameters: {} })).toThrow(JatosError);
    },
  );
});

describe('jatosAborter', () => {
  it('aborts the run once, with the decline message', () => {
    const j = { abortStudy: vi.fn() };
    const abort = jatosAborter(j);
    expect(abort()).toBe(true);
    expect(abort()).toBe(false);
    expect(j.abortStudy).toHaveBeenCalledExactlyOnceWith(JATOS_DECLINE_MESSAGE);
  });
});

describe('jatosEnder', () => {
  const fake = () => ({ endStudy: vi.fn(), endStudyAndRedirect: vi.fn() });
  it('redirects once when there is a URL', () => {
    const j = fake();
    const end = jatosEnder(j);
    expect(end('https://example.org/done')).toBe(true);
    expect(end('https://example.org/done')).toBe(false);
    expect(j.endStudyAndRedirect).toHaveBeenCalledExactlyOnceWith('https://example.org/done', true);
    expect(j.endStudy).not.toHaveBeenCalled();
  });
  it('ends once without a URL', () => {
    const j = fake();
    const end = jatosEnder(j);
    end('');
    end('');
    expect(j.endStudy).toHaveBeenCalledExactlyOnceWith(true);
    expect(j.endStudyAndRedirect).not.toHaveBeenCalled();
  });
});

describe('loadJatos', () => {
  /** A document whose appended script "loads" at once, defining `jatos` on the window. */
  function host(define: boolean, fail = false) {
    const appended: { src: string }[] = [];
    const win: { jatos?: unknown } = {};
    const api = { onLoad: (cb: () => void) => cb() } as unknown as JatosApi;
    const document = {
      head: {
        appendChild(el: { src: string; onload?: () => void; onerror?: () => void }) {
          appended.push(el);
          if (define) win.jatos = api;
          queueMicrotask(() => (fail ? el.onerror?.() : el.onload?.()));
          return el;
        },
      },
      createElement: () => ({}) as HTMLScriptElement,
    } as unknown as Pick<Document, 'createElement' | 'head'>;
    return { host: { document, window: win }, appended, api };
  }

  it('adds a script tag for the relative jatos.js and resolves after onLoad', async () => {
    const h = host(true);
    await expect(loadJatos(h.host)).resolves.toBe(h.api);
    expect(h.appended.map((s) => s.src)).toEqual(['jatos.js']);
  });
  it('says so when the script fails or defines nothing', async () => {
    await expect(loadJatos(host(false, true).host)).rejects.toThrow('could not be loaded');
    await expect(loadJatos(host(false).host)).rejects.toThrow('did not define');
  });
});
