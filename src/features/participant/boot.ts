/**
 * Starting a participant's run in the browser: where the study comes from (the URL, or JATOS),
 * the storage (IndexedDB; a separate database for previews), the single-writer lock (Web Locks,
 * or a lease where the browser lacks them), the sinks, and the generator worker that makes the
 * puzzles. Everything the run decides lives in `src/study/run/run.ts`; this file only wires the
 * browser to it.
 */
import type { Puzzle } from '../../core/puzzle/puzzle';
import { createGeneratorClient } from '../../worker/generatorClient';
import type { StudyDefinition, StudySink } from '../../study/definition/definition';
import { jatosInputs, loadJatos, type JatosApi } from '../../study/delivery/jatosRuntime';
import { decodeStudyLink } from '../../study/definition/link';
import { leaseLock, webLocksLock, type WebLocks } from '../../study/delivery/lock';
import { Outbox } from '../../study/delivery/outbox';
import { IndexedDbStorage, MemoryStorage, type OutboxStorage } from '../../study/delivery/storage';
import { hasShortParam, isJatosPath, readParticipantParams } from '../../study/delivery/route';
import { StudyRun, type DeclineMemo, type SessionIssuer } from '../../study/run/run';
import { isLiveReview, kindSpec } from '../../study/kinds';
import {
  fetchCoverage,
  fetchReviewItems,
  requestSession,
  resolveShortLink,
  type JsonFetch,
} from '../../study/delivery/serverApi';
import { needsIssuedSession, transportsFor } from '../../study/definition/sinks';
import type { FetchLike } from '../../study/delivery/transports';
import { storyRequest, trialContent } from '../../study/schedule/trialContent';
import { warmDrawing } from './drawingLayout';

/** The IndexedDB databases: real runs and previews never share rows, locks or sessions. */
export const STUDY_DB = 'clutrr-lab-study';
export const PREVIEW_DB = 'clutrr-lab-study-preview';

export interface RunEnv {
  readonly def: StudyDefinition;
  readonly preview: boolean;
  /** jatos.js, when the page runs inside JATOS. */
  readonly jatos: JatosApi | null;
  readonly outbox: Outbox;
  /** Each item's puzzle by puzzle id (the drawing of `text+drawing` conditions needs its facts). */
  readonly puzzles: ReadonlyMap<string, Puzzle>;
  /** Storage could not be opened durably (private mode…): rows live in memory only. */
  readonly memoryOnly: boolean;
  /** The link carries Prolific's PROLIFIC_PID (a decline then says how to return the study on Prolific). */
  readonly prolific: boolean;
  /** The page's address (the consent screen names the results server by its host). */
  readonly pageUrl: string;
}

export type Boot =
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'ready'; readonly run: StudyRun; readonly env: RunEnv };

// No `keepalive`: it caps a body at 64 kB, which a batch of long stories can pass; rows still
// pending when the page goes are handed to sendBeacon on `pagehide` instead.
const browserFetch: FetchLike = (url, init) => fetch(url, init);
const jsonFetch: JsonFetch = (url, init) => fetch(url, init);

const screenOf = () => `${screen.width}x${screen.height}@${Math.round(devicePixelRatio * 100) / 100}`;

/** JATOS always receives the rows when the page runs inside it, even if the link names no JATOS sink. */
function sinksFor(def: StudyDefinition, inJatos: boolean, preview: boolean): StudySink[] {
  if (preview) return [];
  const sinks = [...def.sinks];
  if (inJatos && !sinks.some((s) => s.kind === 'jatos')) sinks.push({ kind: 'jatos' });
  return sinks;
}

async function openStorage(name: string): Promise<{ storage: OutboxStorage; memoryOnly: boolean }> {
  try {
    return { storage: await IndexedDbStorage.open(indexedDB, name), memoryOnly: false };
  } catch {
    return { storage: new MemoryStorage(), memoryOnly: true };
  }
}

/**
 * A decline is remembered in the tab's sessionStorage, never in the study's IndexedDB and never
 * sent: a reload of the declined page shows it again, a new tab asks for consent again.
 */
function sessionDeclines(): DeclineMemo {
  const store = (): Storage | null => {
    try {
      return window.sessionStorage;
    } catch {
      return null;
    }
  };
  const memory = new Set<string>();
  return {
    has: (key) => memory.has(key) || store()?.getItem(key) === '1',
    add: (key) => {
      memory.add(key);
      try {
        store()?.setItem(key, '1');
      } catch {
        // Storage full or refused: the memory copy still holds for this page.
      }
    },
    delete: (key) => {
      memory.delete(key);
      try {
        store()?.removeItem(key);
      } catch {
        // Nothing to forget where nothing could be stored.
      }
    },
  };
}

let booting: Promise<Boot> | null = null;

/** Boots once per page (React's StrictMode runs effects twice in development). */
export function bootOnce(): Promise<Boot> {
  return (booting ??= boot().catch((e: unknown): Boot => ({
    kind: 'error',
    message: e instanceof Error ? e.message : String(e),
  })));
}

async function boot(): Promise<Boot> {
  const inJatos = isJatosPath(location.pathname);
  let jatos: JatosApi | null = null;
  let params: ReturnType<typeof readParticipantParams> & { participantId: string };
  if (inJatos) {
    jatos = await loadJatos({ document, window: window as { jatos?: unknown } });
    const j = jatosInputs(jatos);
    params = {
      token: j.token,
      shortStudyId: null,
      condition: j.condition,
      participantNumber: j.participantNumber,
      preview: false,
      prolificPid: j.prolificPid,
      prolificStudyId: j.prolificStudyId,
      prolificSessionId: j.prolificSessionId,
      participantId: j.participantId,
    };
  } else {
    const p = readParticipantParams(location.search, location.hash);
    params = { ...p, participantId: p.prolificPid };
    if (p.token === null) {
      // A short link: the results server that served this page holds the study's token.
      if (p.shortStudyId === null) {
        return hasShortParam(location.search, location.hash)
          ? { kind: 'error', message: 'This link does not name a study. Please check the link you were given.' }
          : { kind: 'error', message: 'This link does not name a study.' };
      }
      const resolved = await resolveShortLink(jsonFetch, document.baseURI, p.shortStudyId);
      if (!resolved.ok) return { kind: 'error', message: resolved.message };
      params = { ...params, token: resolved.token };
    }
  }
  const decoded = decodeStudyLink(params.token ?? '');
  if (!decoded.ok) {
    const details = decoded.error.problems?.map((p) => `${p.field}: ${p.message}`).join('; ');
    return { kind: 'error', message: details ? `${decoded.error.message} (${details})` : decoded.error.message };
  }
  const preview = params.preview;
  const def: StudyDefinition = { ...decoded.definition, sinks: sinksFor(decoded.definition, inJatos, preview) };

  const { storage, memoryOnly } = await openStorage(preview ? PREVIEW_DB : STUDY_DB);
  const locks = (navigator as Navigator & { locks?: WebLocks }).locks;
  const lock = locks ? webLocksLock(locks) : leaseLock(storage, crypto.randomUUID());
  const outbox = await Outbox.open({
    storage,
    lock,
    // The `server` sink posts beside the page that served the run (same origin, any sub-folder).
    transports: transportsFor(def.sinks, { fetch: browserFetch, jatos: jatos ?? undefined, pageUrl: document.baseURI }),
    onChange: () => window.dispatchEvent(new Event('study:outbox')),
  });
  window.addEventListener('pagehide', () => outbox.flushWithBeacon((url, data) => navigator.sendBeacon(url, data)));

  // Issued sessions: a study sending to the results server asks it for the session
  // after consent. Not in previews (nothing is sent) and not inside JATOS (the page is JATOS's,
  // not the results server's, so there is no api/sessions beside it).
  const shortId = params.shortStudyId;
  const issuer: SessionIssuer | undefined =
    !preview && !inJatos && needsIssuedSession(def.sinks)
      ? {
          study: shortId !== null ? { studyId: shortId } : { token: params.token! },
          request: (request) => requestSession(jsonFetch, document.baseURI, request),
        }
      : undefined;
  // Until the server assigns the condition, any condition's drawing may be needed.
  const mayDraw = (issuer ? def.conditions : []).some((c) => c.display === 'text+drawing');

  const generator = createGeneratorClient();
  // Only a kind whose puzzles the worker generates needs it.
  if (kindSpec(def.kind).generated) generator.warm();
  const puzzles = new Map<string, Puzzle>();
  const run = new StudyRun({
    def,
    token: params.token!,
    identity: {
      participantId: params.participantId,
      prolificStudyId: params.prolificStudyId,
      prolificSessionId: params.prolificSessionId,
      participantNumber: params.participantNumber,
      forcedCondition: params.condition,
    },
    outbox,
    storage,
    now: () => Date.now(),
    newId: () => crypto.randomUUID(),
    device: { userAgent: navigator.userAgent, screen: screenOf() },
    declines: sessionDeclines(),
    ...(issuer ? { issuer } : {}),
    // Collection studies on the results server: the live review queue's stories, the
    // stories per clause for a paraphrase study that favours the least covered.
    ...(issuer && isLiveReview(def)
      ? {
          reviewItems: (sessionId: string, secret: string | undefined) =>
            fetchReviewItems(jsonFetch, document.baseURI, def.studyId, sessionId, secret, def.reviewsPerParticipant),
        }
      : {}),
    ...(issuer && kindSpec(def.kind).coverage?.wanted(def)
      ? { coverage: () => fetchCoverage(jsonFetch, document.baseURI, def.studyId) }
      : {}),
    makeTrial: async (trial) => {
      const { puzzle, story } = await generator.request('story', storyRequest(def, trial.item)).promise;
      puzzles.set(trial.item.puzzleId, puzzle);
      // The drawing's layout now, while "Preparing puzzles" shows, not when the trial appears.
      if (mayDraw || run.condition?.display === 'text+drawing') warmDrawing(puzzle);
      return trialContent(puzzle, story, trial.item);
    },
  });
  return {
    kind: 'ready',
    run,
    env: {
      def,
      preview,
      jatos,
      outbox,
      puzzles,
      memoryOnly,
      prolific: params.prolificPid !== '',
      pageUrl: document.baseURI,
    },
  };
}
