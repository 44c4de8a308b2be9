/**
 * The sentences that tell a participant a condition's time limits before the first trial (the
 * instructions screen adds them to the researcher's text, whose default says nothing of time).
 */
import type { StudyCondition } from '../../study/definition/definition';
import type { StudyKind } from '../../study/definition/vocabulary';
import { kindSpec } from '../../study/kinds';

/** A duration in words: "45 seconds", "90 seconds", "2 minutes", "2 minutes 30 seconds" (seconds below two minutes). */
export function durationWords(seconds: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (seconds < 120) return plural(seconds, 'second');
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  return rest === 0 ? plural(minutes, 'minute') : `${plural(minutes, 'minute')} ${plural(rest, 'second')}`;
}

/**
 * The condition's limits as sentences (none for an untimed condition): the time per item, the
 * time for all of them (practice not counted, when there is practice), and what happens when it
 * runs out.
 */
export function limitSentences(
  condition: Pick<StudyCondition, 'perPuzzleLimitS' | 'overallLimitS'>,
  kind: StudyKind,
  hasPractice: boolean,
): string[] {
  const [one, many] = kindSpec(kind).words;
  const per = condition.perPuzzleLimitS;
  const overall = condition.overallLimitS;
  if (per === null && overall === null) return [];
  const out: string[] = [];
  if (per !== null) out.push(`You have ${durationWords(per)} for each ${one}.`);
  if (overall !== null) {
    const practice = hasPractice ? ` (the practice ${many} not counted)` : '';
    out.push(`You have ${durationWords(overall)} for all the ${many} together${practice}.`);
  }
  if (per !== null) {
    out.push(`When the time for a ${one} is up, it is recorded without an answer and the next one shows.`);
  }
  if (overall !== null) {
    out.push(`When the time for all the ${many} is up, the study ends and your answers so far are kept.`);
  }
  out.push('The time left shows at the bottom of the screen.');
  return out;
}

/** The words for "the last puzzle" (or story, review) in the notice after a trial ran out of time. */
export const itemWord = (kind: StudyKind) => kindSpec(kind).words[0];
