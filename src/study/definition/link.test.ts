import fc from 'fast-check';
import { deflateSync, inflateSync, strToU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { TASK_IDS } from '../../core/puzzle/tasks';
import {
  DEFAULT_STUDY,
  DISPLAYS,
  RESUME_POLICIES,
  TEMPLATE_SPLITS,
  checkStudyDefinition,
  defaultsFor,
  withDefaults,
  type StudyCondition,
  type StudyDefinition,
} from './definition';
import { crc32, decodeStudyLink, encodeStudyLink } from './link';

const id = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/);
const limit = fc.option(fc.integer({ min: 1, max: 86_400 }), { nil: null });
const condition: fc.Arbitrary<StudyCondition> = fc.record({
  id,
  perPuzzleLimitS: limit,
  overallLimitS: limit,
  display: fc.constantFrom(...DISPLAYS),
  scratchpad: fc.boolean(),
});

/** Random valid definitions (texts with markdown, unicode and line breaks). */
const arbitraryStudy: fc.Arbitrary<StudyDefinition> = fc
  .record({
    studyId: id,
    seed: fc.integer({ min: 0, max: 0xffffffff }),
    k: fc.uniqueArray(fc.integer({ min: 1, max: 10 }), { minLength: 1, maxLength: 5 }),
    tasks: fc.uniqueArray(fc.constantFrom(...TASK_IDS), { minLength: 1, maxLength: 3 }),
    itemsPerK: fc.integer({ min: 1, max: 10 }),
    strict: fc.boolean(),
    templateSplit: fc.constantFrom(...TEMPLATE_SPLITS),
    practice: fc.integer({ min: 0, max: 20 }),
    attentionChecks: fc.integer({ min: 0, max: 20 }),
    lists: fc.option(fc.integer({ min: 2, max: 4 }), { nil: undefined }),
    conditions: fc.uniqueArray(condition, { minLength: 1, maxLength: 4, selector: (c) => c.id }),
    assignment: fc.constantFrom('balanced' as const, 'url' as const),
    consentText: fc.string({ minLength: 1, maxLength: 200 }).filter((s) => s.trim() !== ''),
    instructionsText: fc.string({ maxLength: 200 }),
    completionText: fc.string({ maxLength: 50 }),
    breakEvery: fc.integer({ min: 0, max: 20 }),
    completionCode: fc.stringMatching(/^[A-Z0-9]{0,10}$/),
    redirectUrl: fc.constantFrom('', 'https://app.prolific.com/submissions/complete?cc=ABC'),
    resumePolicy: fc.constantFrom(...RESUME_POLICIES),
    maxAgeMinutes: fc.integer({ min: 1, max: 10_000 }),
    sinks: fc.constantFrom(
      [],
      [{ kind: 'jatos' as const }],
      [{ kind: 'http' as const, url: 'https://x.org/rows' }],
      [{ kind: 'server' as const }],
      [{ kind: 'jatos' as const }, { kind: 'server' as const }],
      [{ kind: 'download' as const, instructions: 'E-mail the file to lab@example.org — *thank you*.' }],
      [{ kind: 'server' as const }, { kind: 'download' as const, instructions: 'Upload it to the course page.' }],
    ),
  })
  .map(({ lists, ...rest }) => {
    const total = rest.k.length * rest.tasks.length * rest.itemsPerK;
    const n = Math.min(lists ?? 0, total);
    return withDefaults({ ...rest, order: n < 2 ? { mode: 'session' } : { mode: 'counterbalanced', lists: n } });
  });

const TYPICAL: StudyDefinition = withDefaults({
  studyId: 'clutrr-human-k2-6',
  seed: 5,
  k: [2, 3, 4, 5, 6],
  itemsPerK: 4,
  practice: 2,
  attentionChecks: 2,
  conditions: [
    { id: 'timed', perPuzzleLimitS: 90, overallLimitS: null, display: 'text', scratchpad: false },
    { id: 'drawing', perPuzzleLimitS: 90, overallLimitS: null, display: 'text+drawing', scratchpad: false },
  ],
  breakEvery: 10,
  completionCode: 'C7Q2M9XK',
  redirectUrl: 'https://app.prolific.com/submissions/complete?cc=C7Q2M9XK',
  sinks: [{ kind: 'jatos' }],
});

describe('CRC-32', () => {
  it('matches the standard check value', () => {
    expect(crc32('123456789')).toBe(0xcbf43926);
    expect(crc32('')).toBe(0);
  });
});

describe('study links', () => {
  it('round-trip random definitions', () => {
    fc.assert(
      fc.property(arbitraryStudy, (def) => {
        expect(checkStudyDefinition(def)).toEqual([]);
        const token = encodeStudyLink(def);
        expect(token).toMatch(/^[A-Za-z0-9_.-]+$/);
        expect(decodeStudyLink(token)).toEqual({ ok: true, definition: def });
      }),
      { numRuns: 300 },
    );
  });

  it('are deterministic and short for a typical study', () => {
    const token = encodeStudyLink(TYPICAL);
    expect(encodeStudyLink({ ...TYPICAL })).toBe(token);
    expect(token.length).toBeLessThan(400);
    // The defaults alone give the shortest link.
    expect(encodeStudyLink(DEFAULT_STUDY).length).toBeLessThan(30);
    // Custom consent text is deflated: a paragraph of prose costs far less than its length.
    const consent = 'You are invited to take part in a research study about reasoning. '.repeat(10);
    expect(encodeStudyLink({ ...TYPICAL, consentText: consent }).length - token.length).toBeLessThan(200);
  });

  it('read links made before the results-server sink existed exactly as before (format 1 is frozen)', () => {
    // Tokens written down when format 1 had only the JATOS and HTTP sinks.
    expect(encodeStudyLink(DEFAULT_STUDY)).toBe('s1.q64FAA.f43af818');
    expect(decodeStudyLink('s1.q64FAA.f43af818')).toEqual({ ok: true, definition: DEFAULT_STUDY });
    const older = withDefaults({
      studyId: 'pinned',
      seed: 7,
      k: [2, 3],
      sinks: [{ kind: 'jatos' }, { kind: 'http', url: 'https://x.org/rows' }],
    });
    const olderToken =
      's1.q1bKVrKKNtIxjtVRKk5NTVGyMgcyMvOyi4HCQMnMPKCQUlZiSX6xUq0OXCCjpKRASUeptCgHyim20tev0MsvStcvyi8HKgUZV1KaUukJUl2QmZcHNLoWAA.18ae11f8';
    expect(encodeStudyLink(older)).toBe(olderToken);
    expect(decodeStudyLink(olderToken)).toEqual({ ok: true, definition: older });
    // The new sink is one more setting of the same format, not a new version.
    const server = withDefaults({ sinks: [{ kind: 'server' }] });
    expect(encodeStudyLink(server)).toMatch(/^s1\./);
    expect(decodeStudyLink(encodeStudyLink(server))).toEqual({ ok: true, definition: server });
    // So is "participants send me the file" (the download sink with its instructions).
    const download = withDefaults({ sinks: [{ kind: 'download', instructions: 'Send it to lab@example.org.' }] });
    expect(encodeStudyLink(download)).toMatch(/^s1\./);
    expect(decodeStudyLink(encodeStudyLink(download))).toEqual({ ok: true, definition: download });
    // An old link that relied on the default consent text now shows the truthful default.
    const decoded = decodeStudyLink('s1.q64FAA.f43af818');
    expect(decoded.ok && decoded.definition.consentText).toMatch(/What is recorded: your answers/);
  });

  it('carry the kind of a collection study, and leave it out of a puzzle-solving one (old tokens unchanged)', () => {
    const payloadOf = (token: string) => {
      const body = token.split('.')[1]!;
      return JSON.parse(new TextDecoder().decode(inflateSync(Buffer.from(body, 'base64url')))) as Record<
        string,
        unknown
      >;
    };
    expect(payloadOf(encodeStudyLink(DEFAULT_STUDY))).toEqual({});
    expect(payloadOf(encodeStudyLink(withDefaults({ kind: 'solve', seed: 3 })))).toEqual({ seed: 3 });

    const paraphrase = withDefaults({ kind: 'paraphrase', clausesPerParticipant: 4, studyId: 'para' });
    const token = encodeStudyLink(paraphrase);
    // The kind's own default texts stay out of the link, as the solve defaults do.
    expect(payloadOf(token)).toEqual({ kind: 'paraphrase', clausesPerParticipant: 4, studyId: 'para' });
    expect(token.length).toBeLessThan(120);
    expect(decodeStudyLink(token)).toEqual({ ok: true, definition: paraphrase });
    expect(paraphrase.instructionsText).toBe(defaultsFor('paraphrase').instructionsText);

    // A puzzle-solving text in a paraphrase study is a change, and is carried.
    const solveText = withDefaults({ kind: 'paraphrase', instructionsText: DEFAULT_STUDY.instructionsText });
    expect(payloadOf(encodeStudyLink(solveText)).instructionsText).toBe(DEFAULT_STUDY.instructionsText);
    expect(decodeStudyLink(encodeStudyLink(solveText))).toEqual({ ok: true, definition: solveText });

    const review = withDefaults({
      kind: 'review',
      reviewsPerParticipant: 2,
      reviewStories: [
        { id: 's-1/0', clause: 'c1.father-sister.female-male-female', seed: 9, story: 'Al and his girl Bo.' },
        { id: 's-2/1', clause: 'c1.son.female-male', seed: 10, story: 'Cy is the son of Di.', author: '0a1b2c3d' },
      ],
    });
    expect(decodeStudyLink(encodeStudyLink(review))).toEqual({ ok: true, definition: review });
  });

  it('refuse a link whose settings do not fit its kind', () => {
    const result = decodeStudyLink(forge({ kind: 'paraphrase', practice: 0 }));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.kind).toBe('invalid-study');
      expect(result.error.message).toMatch(
        /“Practice items” \(--practice\) belongs to puzzle-solving and adaptive studies/,
      );
    }
  });

  it('detect any single-character change', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.% ';
    fc.assert(
      fc.property(arbitraryStudy, fc.nat(), fc.constantFrom(...alphabet), (def, at, ch) => {
        const token = encodeStudyLink(def);
        const i = at % token.length;
        fc.pre(token[i] !== ch);
        const changed = token.slice(0, i) + ch + token.slice(i + 1);
        expect(decodeStudyLink(changed).ok).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('detect every truncation as truncated', () => {
    fc.assert(
      fc.property(arbitraryStudy, fc.nat(), (def, at) => {
        const token = encodeStudyLink(def);
        const cut = token.slice(0, 1 + (at % (token.length - 1)));
        const result = decodeStudyLink(cut);
        expect(result.ok).toBe(false);
        if (!result.ok) expect(result.error.kind).toBe('truncated');
      }),
      { numRuns: 1000 },
    );
  });

  it('name what is wrong', () => {
    const token = encodeStudyLink(TYPICAL);
    const kind = (text: string) => {
      const r = decodeStudyLink(text);
      return r.ok ? 'ok' : r.error.kind;
    };
    expect(kind(`  ${token}\n`)).toBe('ok');
    expect(kind('')).toBe('not-a-study-link');
    expect(kind('hello world')).toBe('not-a-study-link');
    expect(kind('https://example.org/')).toBe('not-a-study-link');
    expect(kind(token.slice(0, -3))).toBe('truncated');
    expect(kind(token.slice(0, 20))).toBe('truncated');
    const last = token.at(-1) === '0' ? '1' : '0';
    expect(kind(token.slice(0, -1) + last)).toBe('tampered');
    expect(kind(token.replace(/^s1\./, 's1.A'))).toBe('tampered');
    // A future version, with a correct checksum.
    const future = `s2.${token.split('.')[1]}`;
    expect(kind(`${future}.${crc32(future).toString(16).padStart(8, '0')}`)).toBe('unknown-version');
  });

  it('refuse a well-formed link whose study cannot run, with the problems', () => {
    // Built by hand as a forger would: valid checksum, bad settings.
    const bad = forge({ k: [0, 11], itemsPerK: 'many' });
    const result = decodeStudyLink(bad);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.kind).toBe('invalid-study');
      expect(result.error.problems?.map((p) => p.field)).toEqual(['k', 'itemsPerK']);
      expect(result.error.message).toMatch(/k must be whole numbers from 1 to 10/);
    }
    const unknown = decodeStudyLink(forge({ colour: 'red' }));
    expect(!unknown.ok && unknown.error.kind).toBe('invalid-study');
    const notObject = decodeStudyLink(forge([1, 2]));
    expect(!notObject.ok && notObject.error.kind).toBe('not-a-study-link');
  });

  it('refuse to encode a study that cannot run', () => {
    expect(() => encodeStudyLink(withDefaults({ k: [] }))).toThrow(/k must be whole numbers/);
  });
});

/** A token with a valid checksum around any JSON (what a hand-made link could hold). */
function forge(settings: unknown): string {
  const bytes = deflateSync(strToU8(JSON.stringify(settings)));
  let b64 = Buffer.from(bytes).toString('base64url');
  b64 = b64.replace(/=+$/, '');
  const body = `s1.${b64}`;
  return `${body}.${crc32(body).toString(16).padStart(8, '0')}`;
}
