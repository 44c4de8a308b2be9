import { describe, expect, it } from 'vitest';
import { hasShortParam, isJatosPath, isParticipantUrl, participantPath, readParticipantParams } from './route';

describe('participant route', () => {
  it('puts the token in the query and reads it back', () => {
    const path = participantPath('s1.abc-_.0123abcd');
    expect(path).toBe('?study=s1.abc-_.0123abcd');
    expect(readParticipantParams(path).token).toBe('s1.abc-_.0123abcd');
    expect(isParticipantUrl(path)).toBe(true);
    expect(isParticipantUrl('?seed=3&k=2', '#/study')).toBe(false);
  });

  it('reads Prolific ids appended to the query, or after a hash', () => {
    const fromQuery = readParticipantParams('?study=s1.x.y&PROLIFIC_PID=p1&STUDY_ID=st&SESSION_ID=se');
    expect([fromQuery.prolificPid, fromQuery.prolificStudyId, fromQuery.prolificSessionId]).toEqual(['p1', 'st', 'se']);
    const fromHash = readParticipantParams('', '#/run?study=s1.x.y&PROLIFIC_PID=p2');
    expect(fromHash.token).toBe('s1.x.y');
    expect(fromHash.prolificPid).toBe('p2');
  });

  it('takes only a whole participant number, and preview only as 1', () => {
    expect(readParticipantParams('?study=t&participant=7').participantNumber).toBe(7);
    expect(readParticipantParams('?study=t&participant=-1').participantNumber).toBeNull();
    expect(readParticipantParams('?study=t&participant=2x').participantNumber).toBeNull();
    expect(readParticipantParams('?study=t&preview=1').preview).toBe(true);
    expect(readParticipantParams('?study=t&preview=yes').preview).toBe(false);
    expect(readParticipantParams('?study=t&condition=timed').condition).toBe('timed');
  });

  it('treats a page inside JATOS (/publix/ in the path) as a participant run, token or not', () => {
    expect(isJatosPath('/publix/abcDEF123')).toBe(true);
    expect(isJatosPath('/jatos/publix/12/start')).toBe(true);
    expect(isJatosPath('/app/index.html')).toBe(false);
    expect(isParticipantUrl('', '', '/publix/abcDEF123')).toBe(true);
    expect(isParticipantUrl('?seed=3', '', '/clutrr/')).toBe(false);
  });

  it('reads a short link ?s=<study id> (also after a hash); the token wins when both are given', () => {
    expect(isParticipantUrl('?s=fault')).toBe(true);
    expect(readParticipantParams('?s=fault&PROLIFIC_PID=p1')).toMatchObject({
      token: null,
      shortStudyId: 'fault',
      prolificPid: 'p1',
    });
    expect(readParticipantParams('', '#/x?s=lab-2').shortStudyId).toBe('lab-2');
    expect(isParticipantUrl('', '#/x?s=lab-2')).toBe(true);
    expect(readParticipantParams('?study=s1.x.y&s=fault')).toMatchObject({ token: 's1.x.y', shortStudyId: null });
    // Not a study id: still the participant's page (which says the link names no study), not the explorer.
    expect(readParticipantParams('?s=a%20b').shortStudyId).toBeNull();
    expect(hasShortParam('?s=a%20b')).toBe(true);
    expect(isParticipantUrl('?s=a%20b')).toBe(true);
    expect(isParticipantUrl('?seed=3&k=2')).toBe(false);
  });
});
