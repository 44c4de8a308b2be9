/**
 * The sink table: one entry per kind of place a study's rows go (`StudySink` in definition.ts),
 * holding everything that differs by kind: its check, its stable id, its transport, its CLI
 * words, the designer's label and what the consent screen says. The table `satisfies` a record
 * keyed by every kind, so a new kind is one entry here and the compiler finds what else must
 * change; nothing treats an unknown kind as JATOS or HTTP.
 *
 * Imports the definition's types (types.ts), never definition.ts, which reads this table to check
 * sinks.
 */
import type { Fail, StudySink } from './types';
import { API_PATHS, apiUrl } from '../delivery/serverApi';
import { httpTransport, jatosTransport, type FetchLike, type JatosLike, type Transport } from '../delivery/transports';

export type SinkKind = StudySink['kind'];
export type SinkOf<K extends SinkKind> = Extract<StudySink, { readonly kind: K }>;

/** The browser's means of reaching the sinks: `fetch`, jatos.js inside JATOS, the page's address. */
export interface TransportMeans {
  readonly fetch: FetchLike;
  readonly jatos?: JatosLike | undefined;
  readonly pageUrl?: string | undefined;
}

/** The sink-related values the CLI read (`--sink`, `--jatos`, `--http-sink`, `--send-instructions`). */
export interface SinkCliValues {
  /** Every `--sink <kind>` given. */
  readonly sink: readonly string[];
  readonly jatos: boolean;
  readonly httpSinks: readonly string[];
  readonly sendInstructions: string | undefined;
}

export interface SinkSpec<K extends SinkKind> {
  /** The designer's name of the choice. */
  readonly label: string;
  /** One sentence under the label in the designer (and in `study link --help`). */
  readonly help: string;
  /** The CLI words that choose it, as `study link --help` shows them. */
  readonly cliUsage: string;
  /** The value of `--sink` that chooses it; null where a flag of its own does (`--jatos`, `--http-sink`). */
  readonly sinkWord: string | null;
  /** Its settings besides `kind`; any other key is refused. */
  readonly settings: readonly string[];
  /** Whether rows leave the participant's device through it. */
  readonly sends: boolean;
  /** Checks a sink of this kind (untrusted: from a link); `at` is its field, e.g. `sinks.0`. */
  check(s: Readonly<Record<string, unknown>>, at: string, fail: Fail): void;
  /** A stable name: acknowledgements are stored under it, and two sinks may not share one. */
  id(s: SinkOf<K>): string;
  /** The transports the outbox sends through (none where the browser cannot reach the sink). */
  transports(s: SinkOf<K>, means: TransportMeans): Transport[];
  /** What the consent screen lists for it; `pageUrl` is the page's address, `alone` when it is the only sink. */
  destination(s: SinkOf<K>, pageUrl: string, alone: boolean): string;
  /** How `study link`'s summary names it. */
  summary(s: SinkOf<K>): string;
  /** The `study link` words that give it. */
  cliArgs(s: SinkOf<K>): string[];
  /** The sinks of this kind the CLI's values describe. */
  fromCli(values: SinkCliValues): SinkOf<K>[];
}

/** The instructions of the download sink stay short enough for a link and a completion screen. */
export const MAX_SEND_INSTRUCTIONS = 2_000;

/** An absolute http(s) address. */
export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

const hostOf = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

const SINK_TABLE = {
  jatos: {
    label: 'JATOS',
    help: 'the study runs inside JATOS (import the .jzip archive); each row goes to its result data',
    cliUsage: '--jatos',
    sinkWord: null,
    sends: true,
    settings: [],
    check: () => undefined,
    id: () => 'jatos',
    // Outside JATOS there is no jatos.js and nothing to send to (the page adds JATOS inside it).
    transports: (_s, means) => (means.jatos ? [jatosTransport('jatos', means.jatos)] : []),
    destination: () => 'JATOS',
    cliArgs: () => ['--jatos'],
    summary: () => 'jatos',
    fromCli: (v) => (v.jatos ? [{ kind: 'jatos' }] : []),
  },
  server: {
    label: 'The results server (npm run serve)',
    help: 'send rows to the results server that serves the app (npm run serve; api/rows beside the page, same origin); the study must be registered there',
    cliUsage: '--sink server',
    sinkWord: 'server',
    sends: true,
    settings: [],
    check: () => undefined,
    id: () => 'server',
    transports: (_s, means) => {
      // Without it the rows would silently go nowhere: a caller's mistake, not a participant's.
      if (means.pageUrl === undefined) throw new Error("the results server sink needs the page's address");
      // The only transport that carries issued sessions' secrets: they were issued by this server.
      return [httpTransport('server', apiUrl(means.pageUrl, API_PATHS.rows), means.fetch, { withSecrets: true })];
    },
    destination: (_s, pageUrl) => `this website (${hostOf(pageUrl)})`,
    cliArgs: () => ['--sink', 'server'],
    summary: () => 'the results server (api/rows beside the page)',
    fromCli: (v) => (v.sink.includes('server') ? [{ kind: 'server' }] : []),
  },
  http: {
    label: 'An HTTP address',
    help: 'POST every row as JSON to this address (a results server elsewhere, or your own endpoint)',
    cliUsage: '--http-sink URL',
    sinkWord: null,
    sends: true,
    settings: ['url'],
    check: (s, at, fail) => {
      if (typeof s.url !== 'string' || !isHttpUrl(s.url)) fail(`${at}.url`, 'an HTTP sink needs an http(s) address');
    },
    id: (s) => `http:${s.url}`,
    transports: (s, means) => [httpTransport(`http:${s.url}`, s.url, means.fetch)],
    destination: (s) => hostOf(s.url),
    cliArgs: (s) => ['--http-sink', s.url],
    summary: (s) => s.url,
    // Trimmed as the designer trims what is typed, so both make the same token.
    fromCli: (v) => v.httpSinks.map((url) => ({ kind: 'http', url: url.trim() })),
  },
  download: {
    label: 'Participants send me the file',
    help: 'nothing is sent: at the end each participant downloads their answers and sends you the file as your instructions say',
    cliUsage: '--sink download --send-instructions TEXT',
    sinkWord: 'download',
    sends: false,
    settings: ['instructions'],
    check: (s, at, fail) => {
      if (typeof s.instructions !== 'string' || s.instructions.trim() === '') {
        fail(`${at}.instructions`, 'say how participants send you the file (for example an e-mail address)');
      } else if (s.instructions.length > MAX_SEND_INSTRUCTIONS) {
        fail(`${at}.instructions`, `the instructions must be at most ${MAX_SEND_INSTRUCTIONS} characters`);
      }
    },
    id: () => 'download',
    transports: () => [],
    destination: (_s, _pageUrl, alone) =>
      alone
        ? 'your device only: you download the file at the end and send it to the researcher yourself'
        : 'a file you download at the end and send to the researcher yourself',
    summary: (s) => `participants send you their file (${JSON.stringify(s.instructions)})`,
    cliArgs: (s) => ['--sink', 'download', '--send-instructions', s.instructions],
    fromCli: (v) =>
      v.sink.includes('download') || v.sendInstructions !== undefined
        ? [{ kind: 'download', instructions: (v.sendInstructions ?? '').trim() }]
        : [],
  },
} satisfies { readonly [K in SinkKind]: SinkSpec<K> };

/** The table, typed so that `sinkSpec(kind)` keeps the kind's own sink type. */
export const SINKS: { readonly [K in SinkKind]: SinkSpec<K> } = SINK_TABLE;

/** Every kind, in the table's order: the order the CLI and the designer list sinks in. */
export const SINK_KINDS = Object.keys(SINK_TABLE) as SinkKind[];

export const isSinkKind = (kind: unknown): kind is SinkKind =>
  typeof kind === 'string' && Object.prototype.hasOwnProperty.call(SINK_TABLE, kind);

/** The table's entry for a kind. */
export function sinkSpec<K extends SinkKind>(kind: K): SinkSpec<K> {
  return SINKS[kind];
}

/** A sink's stable name, used to record which sinks acknowledged a row. */
export function sinkId(sink: StudySink): string {
  const id = <K extends SinkKind>(s: SinkOf<K>) => sinkSpec<K>(s.kind as K).id(s);
  return id(sink);
}

/**
 * The transports for a definition's sinks, given the browser's means to reach them: `fetch`,
 * jatos.js inside JATOS, and the page's address for the `server` sink.
 */
export function transportsFor(sinks: readonly StudySink[], means: TransportMeans): Transport[] {
  return sinks.flatMap(<K extends SinkKind>(s: SinkOf<K>) => sinkSpec<K>(s.kind as K).transports(s, means));
}

/**
 * The study's primary destination among the transports a run has (`available`, the outbox's
 * transport ids): the first sink that sends, in the sink table's order (JATOS, the results
 * server, then HTTP addresses in the order the study lists them). The completion redirect waits
 * for this one to hold every row; the others keep receiving copies while the page is open (and
 * by beacon when it closes), and a refusal or silence of theirs does not keep a participant from
 * Prolific. Null when no transport sends (download-only studies, previews, JATOS outside JATOS).
 */
export function primarySinkId(sinks: readonly StudySink[], available: readonly string[]): string | null {
  const ranked = sinks
    .map((s, i) => ({ s, i, rank: SINK_KINDS.indexOf(s.kind) }))
    .filter(({ s }) => sinkSpec(s.kind).sends && available.includes(sinkId(s)))
    .sort((a, b) => a.rank - b.rank || a.i - b.i);
  return ranked.length > 0 ? sinkId(ranked[0]!.s) : null;
}

/** The run asks the results server for a session when its sinks include `server`. */
export const needsIssuedSession = (sinks: readonly StudySink[]) => sinks.some((s) => s.kind === 'server');

/** How the completion screen names a sink by its transport id (`server`, `jatos`, `http:<url>`). */
export function sinkName(id: string, pageUrl: string): string {
  if (id === 'server') return `the study server (${hostOf(pageUrl)})`;
  if (id === 'jatos') return 'JATOS';
  if (id.startsWith('http:')) return hostOf(id.slice('http:'.length));
  return id;
}

/** True when no sink sends rows anywhere (no sinks, or only the download sink). */
export function isDownloadOnly(sinks: readonly StudySink[]): boolean {
  return !sinks.some((s) => sinkSpec(s.kind).sends);
}

/** Said when a study names no destination at all (the participant's file is all there is). */
export const DEFAULT_SEND_INSTRUCTIONS =
  'This study does not send your answers anywhere. Download the file and send it to the researcher who invited you.';

/**
 * The researcher's instructions for sending the file (the download sink's), the default sentence
 * when the study has no sinks at all, and "" when rows are sent and no file is asked for.
 */
export function downloadInstructions(sinks: readonly StudySink[]): string {
  const download = sinks.find((s): s is SinkOf<'download'> => s.kind === 'download');
  if (download) return download.instructions;
  return sinks.length === 0 ? DEFAULT_SEND_INSTRUCTIONS : '';
}

/** One place a participant's answers go, as the consent screen lists it. */
export interface ConsentDestination {
  readonly kind: SinkKind | 'device';
  readonly text: string;
}

/**
 * What a participant must see before agreeing: one item per destination. The results server is
 * "this website (<host of pageUrl>)", an HTTP sink its host, JATOS "JATOS"; a study that sends
 * nothing says "your device only" (and, with the download sink, that the participant sends the
 * file).
 */
export function consentDestinations(sinks: readonly StudySink[], pageUrl: string): readonly ConsentDestination[] {
  if (sinks.length === 0) return [{ kind: 'device', text: 'your device only' }];
  const alone = isDownloadOnly(sinks);
  return sinks.map(<K extends SinkKind>(s: SinkOf<K>) => ({
    kind: s.kind,
    text: sinkSpec<K>(s.kind as K).destination(s, pageUrl, alone),
  }));
}

/** Checks the sinks of an untrusted definition (called by checkStudyDefinition). */
export function checkSinks(sinks: unknown, maxSinks: number, fail: Fail): void {
  if (!Array.isArray(sinks) || sinks.length > maxSinks) {
    return fail('sinks', `sinks must be a list of at most ${maxSinks}`);
  }
  const seen = new Set<string>();
  sinks.forEach((s: unknown, i) => {
    const at = `sinks.${i}`;
    if (typeof s !== 'object' || s === null || Array.isArray(s)) return fail(at, 'a sink must be an object');
    const sink = s as Record<string, unknown>;
    const kind = Object.prototype.hasOwnProperty.call(sink, 'kind') ? sink.kind : undefined;
    if (!isSinkKind(kind)) {
      const names = SINK_KINDS.map((k) => `"${k}"`);
      return fail(`${at}.kind`, `a sink is ${names.slice(0, -1).join(', ')} or ${names.at(-1)}`);
    }
    let failed = false;
    for (const key of Object.keys(sink)) {
      if (key !== 'kind' && !SINKS[kind].settings.includes(key)) {
        failed = true;
        fail(at, `"${key}" is not a setting of the ${kind} sink`);
      }
    }
    SINKS[kind].check(sink, at, (field, message) => {
      failed = true;
      fail(field, message);
    });
    if (failed) return;
    // Ids are unique per sink: one JATOS, one results server, one download, each address once.
    const id = sinkId(sink as unknown as StudySink);
    if (seen.has(id)) fail(at, 'the same sink is listed twice');
    seen.add(id);
  });
}

/** The `study link` words that give a sink (the designer's CLI line and the CLI's summary use them). */
export function sinkCliArgs(sink: StudySink): string[] {
  const args = <K extends SinkKind>(s: SinkOf<K>) => sinkSpec<K>(s.kind as K).cliArgs(s);
  return args(sink);
}

/** How `study link`'s summary names a sink. */
export function sinkSummary(sink: StudySink): string {
  const summary = <K extends SinkKind>(s: SinkOf<K>) => sinkSpec<K>(s.kind as K).summary(s);
  return summary(sink);
}

/** The `--sink` values, in the table's order. */
export const SINK_WORDS = SINK_KINDS.flatMap((k) => {
  const word = SINKS[k].sinkWord;
  return word === null ? [] : [word];
});

/** The sinks the CLI's values describe, in the table's order (JATOS, the results server, HTTP as given, download). */
export function sinksFromCli(values: SinkCliValues): StudySink[] {
  return SINK_KINDS.flatMap((k): StudySink[] => SINKS[k].fromCli(values));
}
