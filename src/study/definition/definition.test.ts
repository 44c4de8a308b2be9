import { describe, expect, it } from 'vitest';
import {
  checkStudyDefinition,
  DEFAULT_CONDITION,
  DEFAULT_STUDY,
  defaultsFor,
  mainItemCount,
  withDefaults,
} from './definition';
import { sinkId } from './sinks';

const fields = (def: unknown) => checkStudyDefinition(def).map((p) => p.field);

describe('checkStudyDefinition', () => {
  it("keeps the defaults of format 1 (links leave them out), in the definition's field order", () => {
    const { consentText, ...rest } = DEFAULT_STUDY;
    expect(Object.keys(DEFAULT_STUDY)).toEqual([
      ...['version', 'kind', 'studyId', 'seed', 'k', 'tasks', 'itemsPerK', 'strict', 'templateSplit', 'practice'],
      ...['attentionChecks', 'order', 'conditions', 'assignment', 'consentText', 'instructionsText'],
      ...['completionText', 'breakEvery', 'completionCode', 'redirectUrl', 'resumePolicy', 'maxAgeMinutes'],
      // Added since (a link without them means what it meant before: any number of devices per
      // address was never promised, and the results server's places are its own business).
      ...['participation', 'roomSessions', 'claimMinutes'],
      ...['clauseKs', 'clauseGenders', 'clausesPerParticipant', 'favourUncovered', 'minWords', 'maxWords'],
      ...['reviewsPerStory', 'reviewsPerParticipant', 'sourceStudy', 'reviewStories'],
      // The adaptive kind's settings (issue 32).
      ...['adaptive', 'adaptiveTrials', 'ciWidth', 'showEstimate', 'sinks'],
    ]);
    expect(rest).toEqual({
      version: 1,
      kind: 'solve',
      studyId: 'study',
      seed: 1,
      k: [2, 3, 4],
      tasks: [1],
      itemsPerK: 5,
      strict: true,
      templateSplit: 'all',
      practice: 2,
      attentionChecks: 1,
      order: { mode: 'session' },
      conditions: [{ id: 'untimed', perPuzzleLimitS: null, overallLimitS: null, display: 'text', scratchpad: false }],
      assignment: 'balanced',
      instructionsText:
        'Each puzzle is a short story about a family, followed by a question about how two people are related. Choose the answer from the list, then rate how difficult the puzzle was.',
      completionText: 'Thank you for taking part.',
      breakEvery: 0,
      completionCode: '',
      redirectUrl: '',
      resumePolicy: 'resume',
      maxAgeMinutes: 1440,
      participation: 'online',
      roomSessions: 40,
      claimMinutes: 15,
      clauseKs: [1, 2, 3],
      clauseGenders: 'any',
      clausesPerParticipant: 3,
      favourUncovered: false,
      minWords: 5,
      maxWords: 120,
      reviewsPerStory: 3,
      reviewsPerParticipant: 3,
      sourceStudy: '',
      reviewStories: [],
      adaptive: 'staircase',
      adaptiveTrials: 30,
      ciWidth: 0,
      showEstimate: false,
      sinks: [],
    });
    // The one default changed since format 1 was frozen (see DEFAULT_STUDY): the consent text.
    expect(consentText).toMatch(/^This study asks you to solve short puzzles about family relations\./);
    expect(Object.isFrozen(DEFAULT_STUDY)).toBe(true);
  });

  it('accepts the defaults', () => {
    expect(checkStudyDefinition(DEFAULT_STUDY)).toEqual([]);
    expect(mainItemCount(DEFAULT_STUDY)).toBe(15);
  });

  it('accepts a full study: timed and untimed conditions, counterbalanced lists, sinks', () => {
    const def = withDefaults({
      studyId: 'kin-2024_a',
      k: [2, 3, 4, 5, 6],
      tasks: [1, 2],
      itemsPerK: 4,
      order: { mode: 'counterbalanced', lists: 4 },
      conditions: [
        { id: 'timed', perPuzzleLimitS: 83, overallLimitS: null, display: 'text', scratchpad: false },
        { id: 'drawing', perPuzzleLimitS: null, overallLimitS: 3600, display: 'text+drawing', scratchpad: true },
      ],
      assignment: 'url',
      breakEvery: 10,
      completionCode: 'C1A2B3',
      redirectUrl: 'https://app.prolific.com/submissions/complete?cc=C1A2B3',
      resumePolicy: 'refuse',
      sinks: [{ kind: 'jatos' }, { kind: 'http', url: 'https://example.org/rows' }],
    });
    expect(checkStudyDefinition(def)).toEqual([]);
  });

  it('says in clear words what is wrong with k', () => {
    const problems = checkStudyDefinition(withDefaults({ k: [2, 11] }));
    expect(problems).toEqual([{ field: 'k', message: 'k must be whole numbers from 1 to 10 (at least one)' }]);
    expect(fields(withDefaults({ k: [] }))).toEqual(['k']);
    expect(fields(withDefaults({ k: [2.5] }))).toEqual(['k']);
    expect(checkStudyDefinition(withDefaults({ k: [3, 3] }))[0]?.message).toMatch(/only once/);
  });

  it('names each bad field', () => {
    expect(fields(withDefaults({ tasks: [8 as 1] }))).toEqual(['tasks']);
    expect(fields(withDefaults({ itemsPerK: 0 }))).toEqual(['itemsPerK']);
    expect(
      fields(withDefaults({ k: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], tasks: [1, 2, 3, 4, 5, 6], itemsPerK: 10 })),
    ).toEqual(['itemsPerK']);
    expect(fields(withDefaults({ studyId: 'a b' }))).toEqual(['studyId']);
    expect(fields(withDefaults({ seed: -1 }))).toEqual(['seed']);
    expect(fields(withDefaults({ order: { mode: 'counterbalanced', lists: 1 } }))).toEqual(['order.lists']);
    expect(fields(withDefaults({ conditions: [] }))).toEqual(['conditions']);
    expect(
      fields(
        withDefaults({
          conditions: [
            { id: 'a', perPuzzleLimitS: 0, overallLimitS: null, display: 'text', scratchpad: false },
            { id: 'a', perPuzzleLimitS: null, overallLimitS: null, display: 'text', scratchpad: false },
          ],
        }),
      ),
    ).toEqual(['conditions.0.perPuzzleLimitS', 'conditions.1.id']);
    expect(fields(withDefaults({ redirectUrl: 'javascript:alert(1)' }))).toEqual(['redirectUrl']);
    expect(fields(withDefaults({ completionCode: 'a b' }))).toEqual(['completionCode']);
    expect(fields(withDefaults({ consentText: '  ' }))).toEqual(['consentText']);
    expect(fields(withDefaults({ maxAgeMinutes: 0 }))).toEqual(['maxAgeMinutes']);
    expect(fields(withDefaults({ sinks: [{ kind: 'http', url: 'ftp://x' }] }))).toEqual(['sinks.0.url']);
    expect(fields(withDefaults({ sinks: [{ kind: 'jatos' }, { kind: 'jatos' }] }))).toEqual(['sinks.1']);
  });

  it('takes the results server that served the page as a sink: no setting, listed once', () => {
    expect(checkStudyDefinition(withDefaults({ sinks: [{ kind: 'jatos' }, { kind: 'server' }] }))).toEqual([]);
    expect(fields(withDefaults({ sinks: [{ kind: 'server' }, { kind: 'server' }] }))).toEqual(['sinks.1']);
    const withUrl = { ...DEFAULT_STUDY, sinks: [{ kind: 'server', url: 'https://x.org/' }] };
    expect(checkStudyDefinition(withUrl)).toEqual([
      { field: 'sinks.0', message: '"url" is not a setting of the server sink' },
    ]);
    const unknown = { ...DEFAULT_STUDY, sinks: [{ kind: 'ftp' }] };
    expect(checkStudyDefinition(unknown)).toEqual([
      { field: 'sinks.0.kind', message: 'a sink is "jatos", "server", "http" or "download"' },
    ]);
  });

  it('rejects what is not a definition: wrong types, unknown and missing fields', () => {
    expect(fields(null)).toEqual(['']);
    expect(fields({ ...DEFAULT_STUDY, extra: 1 })).toEqual(['extra']);
    const { seed: _seed, ...noSeed } = DEFAULT_STUDY;
    expect(fields(noSeed)).toEqual(['seed']);
    expect(fields({ ...DEFAULT_STUDY, strict: 'yes' })).toEqual(['strict']);
    expect(fields({ ...DEFAULT_STUDY, version: 2 })).toEqual(['version']);
  });

  it('names sinks stably', () => {
    expect(sinkId({ kind: 'jatos' })).toBe('jatos');
    expect(sinkId({ kind: 'http', url: 'https://x.org/a' })).toBe('http:https://x.org/a');
    expect(sinkId({ kind: 'server' })).toBe('server');
    expect(sinkId({ kind: 'download', instructions: 'x' })).toBe('download');
  });

  it('takes "participants send me the file" as a sink: instructions required, bounded, listed once', () => {
    const download = { kind: 'download' as const, instructions: 'E-mail the file to lab@example.org.' };
    expect(checkStudyDefinition(withDefaults({ sinks: [download] }))).toEqual([]);
    expect(checkStudyDefinition(withDefaults({ sinks: [{ kind: 'server' }, download] }))).toEqual([]);
    expect(checkStudyDefinition(withDefaults({ sinks: [{ kind: 'download', instructions: ' ' }] }))).toEqual([
      {
        field: 'sinks.0.instructions',
        message: 'say how participants send you the file (for example an e-mail address)',
      },
    ]);
    expect(fields(withDefaults({ sinks: [{ kind: 'download', instructions: 'x'.repeat(2_001) }] }))).toEqual([
      'sinks.0.instructions',
    ]);
    expect(fields({ ...DEFAULT_STUDY, sinks: [{ kind: 'download' }] })).toEqual(['sinks.0.instructions']);
    expect(
      fields(withDefaults({ sinks: [download, { kind: 'download', instructions: 'Upload it to the course page.' }] })),
    ).toEqual(['sinks.1']);
  });

  it('refuses keys that objects inherit (toString, constructor, __proto__) as settings', () => {
    for (const key of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      const def = JSON.parse(JSON.stringify(DEFAULT_STUDY)) as Record<string, unknown>;
      Object.defineProperty(def, key, { value: 1, enumerable: true });
      expect(checkStudyDefinition(def)).toEqual([{ field: key, message: `"${key}" is not a study setting` }]);

      const condition = JSON.parse(
        `{"id":"c","perPuzzleLimitS":null,"overallLimitS":null,"display":"text","scratchpad":false,"${key}":1}`,
      );
      expect(checkStudyDefinition({ ...DEFAULT_STUDY, conditions: [condition] })).toEqual([
        { field: 'conditions.0', message: `"${key}" is not a condition setting` },
      ]);
      const sink = JSON.parse(`{"kind":"server","${key}":1}`);
      expect(checkStudyDefinition({ ...DEFAULT_STUDY, sinks: [sink] })).toEqual([
        { field: 'sinks.0', message: `"${key}" is not a setting of the server sink` },
      ]);
      // A sink whose kind is only inherited has no kind.
      const noKind = JSON.parse(`{"${key}":"server"}`);
      expect(fields({ ...DEFAULT_STUDY, sinks: [noKind] })).toEqual(['sinks.0.kind']);
    }
    // JSON.parse makes "__proto__" an own key (a link's JSON arrives this way).
    const fromJson = JSON.parse(`{${JSON.stringify(DEFAULT_STUDY).slice(1, -1)},"__proto__":{"studyId":"x"}}`);
    expect(fields(fromJson)).toEqual(['__proto__']);
  });

  it('states in its default consent what is recorded, and never "anonymously"', () => {
    const text = DEFAULT_STUDY.consentText;
    expect(text).not.toMatch(/anonym/i);
    for (const what of ['answers', 'difficulty ratings', 'user-agent', 'screen size', 'Prolific', 'name']) {
      expect(text).toContain(what);
    }
  });
});

describe('study kinds', () => {
  const problems = (def: unknown) => checkStudyDefinition(def).map((p) => `${p.field}: ${p.message}`);
  const story = (i: number) => ({
    id: `sess-${i}/${i}`,
    clause: 'c1.mother-brother.female-female-male',
    seed: 100 + i,
    story: `Story number ${i} tells its facts.`,
  });

  it('makes old definitions, with no kind, puzzle-solving studies', () => {
    const { kind: _kind, ...old } = DEFAULT_STUDY;
    expect(withDefaults(old).kind).toBe('solve');
    expect(checkStudyDefinition(withDefaults(old))).toEqual([]);
  });

  it('gives each collection kind its own consent and instructions, and otherwise the same defaults', () => {
    for (const kind of ['paraphrase', 'review'] as const) {
      const d = defaultsFor(kind);
      expect(d.kind).toBe(kind);
      expect(d.consentText).not.toBe(DEFAULT_STUDY.consentText);
      expect(d.instructionsText).not.toBe(DEFAULT_STUDY.instructionsText);
      expect(d.consentText).toMatch(/What is recorded:/);
      expect({ ...d, kind: 'solve', consentText: '', instructionsText: '' }).toEqual({
        ...DEFAULT_STUDY,
        consentText: '',
        instructionsText: '',
      });
    }
    expect(defaultsFor('paraphrase').instructionsText).toMatch(/implied fact/);
    expect(withDefaults({ kind: 'paraphrase' })).toEqual(defaultsFor('paraphrase'));
  });

  it('accepts a paraphrase study with its settings', () => {
    expect(problems(withDefaults({ kind: 'paraphrase' }))).toEqual([]);
    const def = withDefaults({
      kind: 'paraphrase',
      clauseKs: [2, 3],
      clauseGenders: 'mixed',
      clausesPerParticipant: 6,
      favourUncovered: true,
      minWords: 8,
      maxWords: 60,
      sinks: [{ kind: 'server' }],
      conditions: [{ ...DEFAULT_CONDITION, id: 'timed', perPuzzleLimitS: 300 }],
    });
    expect(problems(def)).toEqual([]);
  });

  it('refuses settings of another kind, naming the setting, its flag and the kind', () => {
    expect(problems(withDefaults({ clausesPerParticipant: 5 }))).toEqual([
      'clausesPerParticipant: “Clauses per participant” (--clauses-per-participant) belongs to paraphrase studies; a puzzle-solving study leaves it out',
    ]);
    expect(problems(withDefaults({ kind: 'paraphrase', k: [3], practice: 0 }))).toEqual([
      'k: “Story lengths k” (--k) belongs to puzzle-solving and adaptive studies; a paraphrase study leaves it out',
      'practice: “Practice items” (--practice) belongs to puzzle-solving and adaptive studies; a paraphrase study leaves it out',
    ]);
    expect(
      problems(withDefaults({ kind: 'review', reviewStories: [story(1)], reviewsPerParticipant: 1, minWords: 3 })),
    ).toEqual(['minWords: “Fewest words” (--min-words) belongs to paraphrase studies; a review study leaves it out']);
    expect(problems(withDefaults({ kind: 'paraphrase', reviewsPerStory: 5 }))[0]).toMatch(
      /^reviewsPerStory: .* belongs to review studies; a paraphrase study leaves it out$/,
    );
  });

  it("refuses what a collection study cannot show, and the paraphrase settings' own problems", () => {
    const drawn = { ...DEFAULT_CONDITION, display: 'text+drawing' as const, scratchpad: true };
    expect(problems(withDefaults({ kind: 'paraphrase', conditions: [drawn] }))).toEqual([
      'conditions.0.display: a paraphrase study shows no drawing; its conditions\' display is "text"',
      'conditions.0.scratchpad: a paraphrase study has no scratchpad; leave it off',
    ]);
    expect(problems(withDefaults({ kind: 'paraphrase', clauseKs: [0, 4] }))).toEqual([
      'clauseKs: facts per clause must be whole numbers from 1 to 3 (at least one)',
    ]);
    expect(problems(withDefaults({ kind: 'paraphrase', clauseKs: [2, 2] }))).toEqual([
      'clauseKs: each number of facts per clause may be listed only once',
    ]);
    expect(problems(withDefaults({ kind: 'paraphrase', favourUncovered: true }))).toEqual([
      'favourUncovered: favouring the clauses with fewest stories needs the results server, which counts them (--sink server)',
    ]);
    expect(problems(withDefaults({ kind: 'paraphrase', minWords: 50, maxWords: 20 }))).toEqual([
      'maxWords: the most words (20) must not be fewer than the fewest words (50)',
    ]);
    expect(problems(withDefaults({ kind: 'paraphrase', clausesPerParticipant: 0 }))).toEqual([
      'clausesPerParticipant: clauses per participant must be a whole number from 1 to 50',
    ]);
    expect(fields(withDefaults({ kind: 'shout' as 'solve' }))).toEqual(['kind']);
  });

  it('asks a review study for its stories: embedded, or served by the results server from a source study', () => {
    expect(problems(withDefaults({ kind: 'review' }))).toEqual([
      'reviewStories: a review study needs stories to review: embed them (--stories FILE) or name the paraphrase study the results server serves them from (--source-study ID with --sink server)',
    ]);
    expect(problems(withDefaults({ kind: 'review', reviewStories: [1, 2, 3].map(story) }))).toEqual([]);
    expect(problems(withDefaults({ kind: 'review', sourceStudy: 'para', sinks: [{ kind: 'server' }] }))).toEqual([]);
    expect(problems(withDefaults({ kind: 'review', sourceStudy: 'para' }))).toEqual([
      'sourceStudy: stories of another study are handed out by the results server: add --sink server, or embed the stories instead (--stories FILE)',
    ]);
    expect(
      problems(withDefaults({ kind: 'review', studyId: 'rev', sourceStudy: 'rev', sinks: [{ kind: 'server' }] })),
    ).toEqual(['sourceStudy: a review study cannot review its own stories; name the paraphrase study']);
    expect(
      problems(withDefaults({ kind: 'review', sourceStudy: 'p', sinks: [{ kind: 'jatos' }, { kind: 'server' }] })),
    ).toEqual([
      'sourceStudy: stories from the results server cannot be fetched inside JATOS: for a JATOS study embed the stories (--stories FILE) instead',
    ]);
    expect(
      problems(
        withDefaults({ kind: 'review', sourceStudy: 'p', reviewStories: [story(1)], sinks: [{ kind: 'server' }] }),
      ),
    ).toEqual([
      'reviewsPerParticipant: each participant cannot review 3 stories: the study embeds only 1',
      'sourceStudy: give either a source study or embedded stories, not both',
    ]);
  });

  it('names each embedded story that is not one', () => {
    const bad = [
      story(1),
      { ...story(2), id: 'no-trial' },
      { ...story(3), clause: 'mother' },
      { ...story(4), seed: -1, story: '' },
      { ...story(5), author: 'PROLIFIC' },
      story(1),
      { ...story(6), extra: true },
      'a story',
    ];
    expect(problems(withDefaults({ kind: 'review', reviewStories: bad as never }))).toEqual([
      'reviewStories.1.id: a story id must be <session_id>/<trial_index> of its paraphrase row',
      'reviewStories.2.clause: story "sess-3/3": the clause must be a clause id such as c1.mother-brother.female-female-male',
      'reviewStories.3.seed: story "sess-4/4": the seed must be a whole number from 0 to 4294967295',
      'reviewStories.3.story: story "sess-4/4": the text must be 1 to 2000 characters',
      'reviewStories.4.author: story "sess-5/5": the author tag must be 8 hexadecimal digits',
      'reviewStories.5.id: the story "sess-1/1" is embedded twice',
      'reviewStories.6: "extra" is not a field of an embedded story',
      'reviewStories.7: an embedded story must be an object',
    ]);
  });
});
