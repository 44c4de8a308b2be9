import { describe, expect, it } from 'vitest';
import type { StudySink } from './definition';
import {
  consentDestinations,
  DEFAULT_SEND_INSTRUCTIONS,
  downloadInstructions,
  isDownloadOnly,
  SINK_KINDS,
  SINKS,
  sinkCliArgs,
  sinkId,
  needsIssuedSession,
  primarySinkId,
  sinkName,
} from './sinks';

const PAGE = 'https://lab.example.org/studies/?study=s1.x';
const download: StudySink = { kind: 'download', instructions: 'E-mail the file to lab@example.org.' };

describe('consentDestinations', () => {
  it('names each destination: this website with its host, JATOS, an HTTP sink by its host', () => {
    const sinks: StudySink[] = [
      { kind: 'jatos' },
      { kind: 'server' },
      { kind: 'http', url: 'https://collect.example.org:8443/rows?x=1' },
    ];
    expect(consentDestinations(sinks, PAGE)).toEqual([
      { kind: 'jatos', text: 'JATOS' },
      { kind: 'server', text: 'this website (lab.example.org)' },
      { kind: 'http', text: 'collect.example.org:8443' },
    ]);
  });

  it('says "your device only" when nothing leaves the device', () => {
    expect(consentDestinations([], PAGE)).toEqual([{ kind: 'device', text: 'your device only' }]);
    const [only] = consentDestinations([download], PAGE);
    expect(only!.kind).toBe('download');
    expect(only!.text).toMatch(/^your device only/);
    expect(only!.text).toMatch(/send it to the researcher yourself/);
  });

  it('with other destinations, lists the file as one more, not as "device only"', () => {
    const list = consentDestinations([{ kind: 'server' }, download], 'http://127.0.0.1:8080/');
    expect(list.map((d) => d.text)).toEqual([
      'this website (127.0.0.1:8080)',
      'a file you download at the end and send to the researcher yourself',
    ]);
  });
});

describe('isDownloadOnly and downloadInstructions', () => {
  it('is download-only with no sinks or only the download sink', () => {
    expect(isDownloadOnly([])).toBe(true);
    expect(isDownloadOnly([download])).toBe(true);
    expect(isDownloadOnly([download, { kind: 'jatos' }])).toBe(false);
    expect(isDownloadOnly([{ kind: 'http', url: 'https://x.org/' }])).toBe(false);
  });

  it("gives the researcher's instructions, the default sentence without sinks, and nothing when rows are sent", () => {
    expect(downloadInstructions([{ kind: 'server' }, download])).toBe('E-mail the file to lab@example.org.');
    expect(downloadInstructions([])).toBe(DEFAULT_SEND_INSTRUCTIONS);
    expect(downloadInstructions([{ kind: 'server' }])).toBe('');
  });
});

describe('the sink table', () => {
  it('has one entry per kind, each with a label, help and CLI usage', () => {
    expect(SINK_KINDS).toEqual(['jatos', 'server', 'http', 'download']);
    for (const kind of SINK_KINDS) {
      expect(SINKS[kind].label.length).toBeGreaterThan(0);
      expect(SINKS[kind].help.length).toBeGreaterThan(0);
      expect(SINKS[kind].cliUsage).toMatch(/^--/);
    }
  });

  it('reads back from its own CLI words: every kind round-trips', () => {
    const sinks: StudySink[] = [
      { kind: 'jatos' },
      { kind: 'server' },
      { kind: 'http', url: 'https://x.org/r' },
      download,
    ];
    for (const s of sinks) {
      const words = sinkCliArgs(s);
      const values = {
        sink: words.flatMap((w, i) => (words[i - 1] === '--sink' ? [w] : [])),
        jatos: words.includes('--jatos'),
        httpSinks: words.flatMap((w, i) => (words[i - 1] === '--http-sink' ? [w] : [])),
        sendInstructions: words.find((_w, i) => words[i - 1] === '--send-instructions'),
      };
      const back = SINK_KINDS.flatMap((k): StudySink[] => SINKS[k].fromCli(values));
      expect(back).toEqual([s]);
      expect(sinkId(back[0]!)).toBe(sinkId(s));
    }
  });
});

describe('the primary destination', () => {
  const http = (url: string) => ({ kind: 'http' as const, url });
  it("is the first sink that sends, in the table order (JATOS, the results server, HTTP as listed), among the run's transports", () => {
    const sinks = [http('https://b.example/r'), { kind: 'server' as const }, http('https://a.example/r')];
    expect(primarySinkId(sinks, ['http:https://b.example/r', 'server', 'http:https://a.example/r'])).toBe('server');
    expect(
      primarySinkId(
        [http('https://b.example/r'), http('https://a.example/r')],
        ['http:https://a.example/r', 'http:https://b.example/r'],
      ),
    ).toBe('http:https://b.example/r');
    // JATOS outside JATOS has no transport: the next one is primary.
    expect(primarySinkId([{ kind: 'jatos' }, { kind: 'server' }], ['server'])).toBe('server');
    expect(primarySinkId([{ kind: 'jatos' }, { kind: 'server' }], ['jatos', 'server'])).toBe('jatos');
    expect(primarySinkId([{ kind: 'download', instructions: 'mail it' }], [])).toBeNull();
    expect(primarySinkId([], [])).toBeNull();
  });

  it('names sinks for the participant; only the server sink asks for sessions', () => {
    expect(sinkName('server', 'https://lab.example/s/?s=x')).toBe('the study server (lab.example)');
    expect(sinkName('http:https://a.example:8443/r', 'https://lab.example/')).toBe('a.example:8443');
    expect(sinkName('jatos', 'https://lab.example/')).toBe('JATOS');
    expect(needsIssuedSession([{ kind: 'server' }])).toBe(true);
    expect(needsIssuedSession([{ kind: 'jatos' }, http('https://a.example/r')])).toBe(false);
  });
});
