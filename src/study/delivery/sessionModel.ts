/**
 * What a study session is, declared once for the participant's page, the results server and the
 * exports.
 *
 * A session is one participant's run of one study. Some of its facts are fixed when it starts and
 * never change (the study, its id, the participant, the condition; for a session the results
 * server issued also the participant number, hence the schedule, and the Prolific ids). Others
 * belong to the device a participant is using (the browser, the screen, when that device started):
 * a participant may continue on another device, which joins the session with facts of its own.
 * Two records of one session agree when their fixed facts agree; a record with other device facts
 * is another device of the same session, never a conflict. Each row is stored with the device
 * that sent it, and the CSV export gives each row that device's browser and screen.
 */
import type { SessionInfo } from '../results/results';

/** Whether each fact of a session record is the session's own (`fixed`) or its device's. */
export const SESSION_FACTS = {
  study_id: 'fixed',
  session_id: 'fixed',
  participant_id: 'fixed',
  condition: 'fixed',
  user_agent: 'device',
  screen: 'device',
  started_at: 'device',
} as const satisfies Record<keyof SessionInfo, 'fixed' | 'device'>;

type FactsOf<K extends 'fixed' | 'device'> = {
  [F in keyof typeof SESSION_FACTS]: (typeof SESSION_FACTS)[F] extends K ? F : never;
}[keyof typeof SESSION_FACTS];

export type FixedFact = FactsOf<'fixed'>;
export type DeviceFact = FactsOf<'device'>;

const factsOf = <K extends 'fixed' | 'device'>(kind: K) =>
  (Object.keys(SESSION_FACTS) as (keyof SessionInfo)[]).filter((f) => SESSION_FACTS[f] === kind) as FactsOf<K>[];

export const FIXED_FACTS: readonly FixedFact[] = factsOf('fixed');
export const DEVICE_FACTS: readonly DeviceFact[] = factsOf('device');

/** Two records of the same session: their fixed facts agree (devices may differ). */
export const sameSessionFacts = (a: SessionInfo, b: SessionInfo): boolean => FIXED_FACTS.every((f) => a[f] === b[f]);

/** The same device of a session: every device fact agrees too. */
export const sameDevice = (a: Pick<SessionInfo, DeviceFact>, b: Pick<SessionInfo, DeviceFact>): boolean =>
  DEVICE_FACTS.every((f) => a[f] === b[f]);

/** The first fixed fact on which two records of one session id disagree, or undefined. */
export const differingFact = (a: SessionInfo, b: SessionInfo): FixedFact | undefined =>
  FIXED_FACTS.find((f) => a[f] !== b[f]);

/**
 * Devices one session may have on the results server (the first included): a participant who
 * moves between a phone, a laptop and a lab computer needs a few; a client inventing devices
 * cannot make the session's records grow without bound.
 */
export const MAX_DEVICES_PER_SESSION = 8;

/**
 * The facts the results server fixes when it issues a session (sessions.ts) and rebuilds its
 * schedule from; the page takes them from the grant and never from its own link.
 */
export const ISSUED_FACTS = [
  'participant',
  'condition',
  'participant_id',
  'prolific_study_id',
  'prolific_session_id',
] as const;
