import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ResultsFilesClient } from '../../worker/resultsClient';
import type { ResultsCommands } from '../../worker/resultsProtocol';
import { createResultsReader } from '../../worker/resultsReader';
import { serve, type RpcRequest, type WorkerLike } from '../../worker/rpc';
import { exportUrl, setResultsReader, useResults } from './store';

describe('exportUrl', () => {
  it("is the server's JSON export, under a reverse proxy's path too, the study as a query parameter", () => {
    expect(exportUrl('http://127.0.0.1:8080', '')).toBe('http://127.0.0.1:8080/api/results.json');
    expect(exportUrl('https://lab.example/clutrr', ' my study ')).toBe(
      'https://lab.example/clutrr/api/results.json?study=my+study',
    );
    expect(exportUrl('https://lab.example/clutrr/', 'a&b')).toBe(
      'https://lab.example/clutrr/api/results.json?study=a%26b',
    );
  });

  it('refuses what is not an address', () => {
    expect(() => exportUrl('localhost 8080', '')).toThrow();
  });
});

const csv = readFileSync('e2e/fixtures/results-a.csv', 'utf8');
const json = readFileSync('e2e/fixtures/results-b.json', 'utf8');

/**
 * The results worker run in this process through the same RPC (serve on one side, RpcClient on
 * the other); `crash` makes it fail as a worker that runs out of memory does (an error event,
 * no answer).
 */
function inProcessWorker(crash: () => boolean): WorkerLike {
  const read = createResultsReader();
  const w: WorkerLike = {
    onmessage: null,
    onerror: null,
    postMessage(message) {
      if (crash()) {
        setTimeout(() => w.onerror?.({ message: 'Uncaught RangeError: Array buffer allocation failed' } as ErrorEvent));
        return;
      }
      void serve<ResultsCommands>({ read }, (m) => w.onmessage?.({ data: m } as MessageEvent))(
        message as RpcRequest<ResultsCommands>,
      );
    },
    terminate() {},
  };
  return w;
}

describe('the dashboard store reads files in the worker', () => {
  let crashing = false;
  beforeEach(() => {
    crashing = false;
    setResultsReader(new ResultsFilesClient(() => inProcessWorker(() => crashing)));
    useResults.getState().clear();
    useResults.setState({ groupBy: 'k', excludeFlagged: false });
  });

  it('loads files: rows merged, a line per file, the reading line gone, a second load keeps the first', async () => {
    const { importFiles } = useResults.getState();
    await importFiles([new File([csv], 'results-a.csv')]);
    expect(useResults.getState().reading).toEqual([]);
    expect(useResults.getState().files).toEqual([
      { name: 'results-a.csv', ok: true, format: 'csv', rows: 1650, sessions: 30 },
    ]);
    await importFiles([new File([json], 'results-b.json')]);
    const s = useResults.getState();
    expect(s.merged.sessions).toBe(50);
    expect(s.merged.duplicates).toBe(5 * 55);
    expect(s.files.map((f) => f.name)).toEqual(['results-a.csv', 'results-b.json']);
    expect(s.participants).toHaveLength(50);
    expect(s.figures.view).toEqual({ by: 'k', excludeFlagged: false, collect: { minReviews: 3, agree: 'all' } });
    expect(s.figures.groups.map((g) => g.key)).toEqual(['2', '3', '4', '5', '6']);
    expect(s.figures.answered).toHaveLength(50);
    // Another grouping: computed in the worker from the rows it holds.
    const people = s.participants;
    s.setGroupBy('condition');
    await vi.waitFor(() => expect(useResults.getState().figures.view.by).toBe('condition'));
    expect(useResults.getState().figures.groups.map((g) => g.key)).toEqual(['timed-90', 'untimed']);
    expect(useResults.getState().participants).toBe(people); // not sent again
    await s.remove('results-a.csv');
    expect(useResults.getState().merged.sessions).toBe(25);
    expect(useResults.getState().participants).toHaveLength(25);
  });

  it('a hostile session_id ends "Reading…" with the file, row and field named', async () => {
    const doc = JSON.parse(json) as { rows: Record<string, unknown>[] };
    doc.rows[0]!.session_id = { nested: true };
    await useResults.getState().importFiles([new File([JSON.stringify(doc)], 'hostile.json')]);
    const s = useResults.getState();
    expect(s.reading).toEqual([]);
    expect(s.files[0]).toMatchObject({
      ok: false,
      problem: { file: 'hostile.json', row: 1, column: 'session_id' },
    });
    expect(s.merged.rows).toBe(0);
  });

  it('a worker that crashes ends "Reading…": the new file refused by name and size, the others kept and read again', async () => {
    const { importFiles } = useResults.getState();
    await importFiles([new File([csv], 'results-a.csv')]);
    crashing = true;
    await importFiles([new File([json], 'huge.json')]);
    let s = useResults.getState();
    expect(s.reading).toEqual([]);
    const refused = s.files.find((f) => f.name === 'huge.json');
    expect(refused).toMatchObject({ ok: false });
    expect(refused!.ok ? '' : refused!.problem.message).toMatch(
      /^huge\.json: could not be read \(\d+(\.\d+)? (kB|MB)\): the file reader stopped \(Uncaught RangeError: Array buffer allocation failed\); the browser may have run out of memory$/,
    );
    expect(s.merged.sessions).toBe(30);
    // The next read starts a fresh worker, which reads the file kept before again.
    crashing = false;
    await importFiles([new File([json], 'results-b.json')]);
    s = useResults.getState();
    expect(s.merged.sessions).toBe(50);
    expect(s.files.map((f) => [f.name, f.ok])).toEqual([
      ['results-a.csv', true],
      ['results-b.json', true],
      ['huge.json', false],
    ]);
    await s.remove('huge.json');
    expect(useResults.getState().files).toHaveLength(2);
  });

  it('a crash while regrouping ends the work with a message; the figures of the last view stay', async () => {
    await useResults.getState().importFiles([new File([csv], 'results-a.csv')]);
    crashing = true;
    useResults.getState().setGroupBy('task');
    await vi.waitFor(() => expect(useResults.getState().computing).toBe(false));
    const s = useResults.getState();
    expect(s.readError).toMatch(/^The figures could not be computed: the file reader stopped \(Uncaught RangeError/);
    expect(s.figures.view.by).toBe('k');
    expect(s.files).toHaveLength(1);
    crashing = false;
    useResults.getState().setGroupBy('condition');
    await vi.waitFor(() => expect(useResults.getState().figures.view.by).toBe('condition'));
    expect(useResults.getState().readError).toBeNull();
  });

  it('the server fetch path (text in memory) goes through the worker too', async () => {
    const entry = await useResults.getState().addBlob('host study x.json', new Blob([json]));
    expect(entry).toMatchObject({ ok: true, rows: 25 * 55 });
    expect(useResults.getState().merged.sessions).toBe(25);
  });
});
