import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type RpcRequest, type RpcResponse, serve } from './rpc';
import { handlers, type TemplateCommands } from './templates.worker';

const MINI = readFileSync('e2e/fixtures/templates-mini.json', 'utf8');

/** Runs one `read` through the worker's dispatcher in this process. */
async function read(files: File[]): Promise<RpcResponse[]> {
  const posted: RpcResponse[] = [];
  const dispatch = serve<TemplateCommands>(handlers, (m) => posted.push(m));
  await dispatch({ id: 1, command: 'read', body: { files } } as RpcRequest<TemplateCommands>);
  return posted;
}

describe('the template worker', () => {
  it('reads picked files leniently, halves paired, and ends its progress at the whole', async () => {
    const posted = await read([new File([MINI], 'mini.train.json'), new File(['{"sonn": {}}'], 'mini.test.json')]);
    const last = posted.at(-1)!;
    expect(last.type).toBe('result');
    const reading = (last as { result: TemplateCommands['read']['result'] }).result;
    expect(reading.name).toBe('mini.train.json + mini.test.json');
    expect(Object.keys(reading.halves!.train)).toEqual(['son', 'daughter', 'niece']);
    expect(reading.problems).toEqual([
      { file: 'mini.test.json', fComb: 'sonn', message: '"sonn" is not a relation word' },
    ]);
    const progress = posted.filter((m) => m.type === 'progress');
    expect(progress.at(-1)).toMatchObject({ done: 1000, total: 1000 });
  });

  it('decodes UTF-8 split across chunks', async () => {
    const text = JSON.stringify({ son: { 'female-male': ['ENT_0_female took her son ENT_1_male to Zürich.'] } });
    const bytes = new TextEncoder().encode(text);
    const at = text.indexOf('ü') + 1; // inside the two bytes of ü
    const posted = await read([new File([bytes.slice(0, at), bytes.slice(at)], 'u.json')]);
    const reading = (posted.at(-1) as { result: TemplateCommands['read']['result'] }).result;
    expect(reading.bank.son!['female-male']).toEqual(['ENT_0_female took her son ENT_1_male to Zürich.']);
  });
});
