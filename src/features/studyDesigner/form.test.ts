import { describe, expect, it } from 'vitest';
import { DEFAULT_STUDY, defaultsFor, type StudyDefinition, withDefaults } from '../../study/definition/definition';
import {
  cliCommand,
  DEFAULT_FORM,
  definitionFromForm,
  formFromDefinition,
  formFromFile,
  inputForProblem,
  NO_DESTINATION,
  problemsByInput,
  shellWord,
  studySummary,
  whatParticipantsDo,
  withKind,
} from './form';

const rich: StudyDefinition = withDefaults({
  studyId: 'pilot-2',
  seed: 77,
  k: [2, 4],
  tasks: [1, 2],
  itemsPerK: 3,
  strict: false,
  templateSplit: 'test',
  practice: 1,
  attentionChecks: 2,
  order: { mode: 'counterbalanced', lists: 3 },
  conditions: [
    { id: 'fast', perPuzzleLimitS: 30, overallLimitS: null, display: 'text', scratchpad: false },
    { id: 'drawn', perPuzzleLimitS: null, overallLimitS: 600, display: 'text+drawing', scratchpad: true },
  ],
  assignment: 'url',
  consentText: "You **agree**; it's fine.\nSecond line.",
  breakEvery: 4,
  completionCode: 'C0DE',
  redirectUrl: 'https://example.org/done?x=1',
  resumePolicy: 'refuse',
  maxAgeMinutes: 60,
  sinks: [{ kind: 'jatos' }, { kind: 'server' }, { kind: 'http', url: 'https://a.example/rows' }],
});

describe('the designer form', () => {
  it('shows the defaults and reads back to DEFAULT_STUDY, with no destination chosen', () => {
    expect(definitionFromForm(DEFAULT_FORM)).toEqual(DEFAULT_STUDY);
    expect([DEFAULT_FORM.jatos, DEFAULT_FORM.server, DEFAULT_FORM.http, DEFAULT_FORM.download]).toEqual([
      false,
      false,
      false,
      false,
    ]);
    // The only problem of the defaults: where results go is not chosen (so no link yet).
    expect(problemsByInput(DEFAULT_FORM).all).toEqual([{ field: 'sinks', message: NO_DESTINATION }]);
    expect(NO_DESTINATION).toBe(
      'choose where results go: JATOS, the results server (npm run serve), an HTTP address or participants send me the file',
    );
    expect(problemsByInput({ ...DEFAULT_FORM, server: true }).all).toEqual([]);
  });

  it('"participants send me the file": the download sink with the instructions, which it requires', () => {
    const how = 'Send the file to lab@example.org.';
    const form = { ...DEFAULT_FORM, download: true, sendInstructions: ` ${how} ` };
    const def = definitionFromForm(form);
    expect(def.sinks).toEqual([{ kind: 'download', instructions: how }]);
    expect(problemsByInput(form).all).toEqual([]);
    expect(cliCommand(def)).toMatch(/ --sink download --send-instructions 'Send the file to lab@example\.org\.'$/);
    expect(formFromDefinition(def)).toMatchObject({ download: true, sendInstructions: how });
    const empty = problemsByInput({ ...DEFAULT_FORM, download: true });
    expect(empty.byInput.get('sendInstructions')).toEqual([
      'say how participants send you the file (for example an e-mail address)',
    ]);
    // Instructions typed while the box is not ticked choose nothing.
    expect(definitionFromForm({ ...DEFAULT_FORM, sendInstructions: how }).sinks).toEqual([]);
  });

  it('a definition file without sinks loads with nothing chosen', () => {
    const r = formFromFile(JSON.stringify({ ...rich, sinks: [] }));
    expect(r.ok && problemsByInput(r.form).all).toEqual([{ field: 'sinks', message: NO_DESTINATION }]);
  });

  it('reads back every setting of a study it shows', () => {
    expect(definitionFromForm(formFromDefinition(rich))).toEqual(rich);
  });

  it('puts each problem beside its input', () => {
    const form = {
      ...DEFAULT_FORM,
      k: '2, 11',
      consentText: '  ',
      seed: 'abc',
      orderMode: 'counterbalanced' as const,
      orderLists: '1',
      jatos: true,
      http: true,
      httpSinks: ['https://ok.example', 'nowhere'],
      conditions: [...DEFAULT_FORM.conditions, { ...DEFAULT_FORM.conditions[0]!, key: 9, perPuzzleLimitS: '-5' }],
    };
    const { byInput, all } = problemsByInput(form);
    expect(byInput.get('k')).toEqual(['k must be whole numbers from 1 to 10 (at least one)']);
    expect(byInput.get('consentText')).toEqual(['the consent text must not be empty']);
    expect(byInput.get('seed')).toHaveLength(1);
    expect(byInput.get('orderLists')).toHaveLength(1);
    expect(byInput.get('httpSinks.1')).toEqual(['an HTTP sink needs an http(s) address']);
    expect(byInput.get('conditions.1.id')![0]).toMatch(/used twice/);
    expect(byInput.get('conditions.1.perPuzzleLimitS')).toHaveLength(1);
    expect([...byInput.values()].flat()).toHaveLength(all.length);
  });

  it('maps sink problems onto the box, address or instructions of that sink', () => {
    const none = DEFAULT_FORM;
    const sinks = (over: Partial<typeof DEFAULT_FORM>) => ({ ...DEFAULT_FORM, ...over });
    const http2 = { http: true, httpSinks: ['https://a.example', 'https://b.example'] };
    expect(inputForProblem('sinks.1.url', sinks({ jatos: true, ...http2 }))).toBe('httpSinks.0');
    expect(inputForProblem('sinks.1.url', sinks(http2))).toBe('httpSinks.1');
    expect(inputForProblem('sinks.0', sinks({ jatos: true }))).toBe('jatos');
    expect(inputForProblem('sinks.0', sinks({ server: true }))).toBe('server');
    expect(inputForProblem('sinks.1', sinks({ jatos: true, server: true }))).toBe('server');
    expect(inputForProblem('sinks.2.url', sinks({ jatos: true, server: true, ...http2 }))).toBe('httpSinks.0');
    expect(inputForProblem('sinks.1.url', sinks({ server: true, ...http2 }))).toBe('httpSinks.0');
    const download = { download: true, sendInstructions: '' };
    expect(inputForProblem('sinks.1.instructions', sinks({ server: true, ...download }))).toBe('sendInstructions');
    expect(inputForProblem('sinks.0', sinks(download))).toBe('download');
    expect(inputForProblem('sinks', none)).toBe('sinks');
    expect(inputForProblem('order.lists', none)).toBe('orderLists');
    expect(inputForProblem('conditions.2.display', none)).toBe('conditions.2.display');
  });

  it('the results server sink: a box that adds { kind: "server" } after JATOS, and --sink server', () => {
    expect(DEFAULT_FORM.server).toBe(false);
    const def = definitionFromForm({ ...DEFAULT_FORM, server: true, http: true, httpSinks: ['https://b.example/r'] });
    expect(def.sinks).toEqual([{ kind: 'server' }, { kind: 'http', url: 'https://b.example/r' }]);
    expect(problemsByInput({ ...DEFAULT_FORM, server: true }).all).toEqual([]);
    expect(cliCommand(def)).toMatch(/ --sink server --http-sink https:\/\/b\.example\/r$/);
    expect(formFromDefinition(def).server).toBe(true);
  });

  it('an empty limit is no limit; a blank k list is refused', () => {
    const def = definitionFromForm({ ...DEFAULT_FORM, k: ' ' });
    expect(def.conditions[0]!.perPuzzleLimitS).toBeNull();
    expect(problemsByInput({ ...DEFAULT_FORM, k: ' ' }).byInput.get('k')).toHaveLength(1);
  });
});

describe('summary', () => {
  it('counts items per k and task, trials and minutes at 1.4 per puzzle', () => {
    const s = studySummary(rich);
    expect(s.cells).toEqual([
      { k: 2, task: 1, items: 3 },
      { k: 2, task: 2, items: 3 },
      { k: 4, task: 1, items: 3 },
      { k: 4, task: 2, items: 3 },
    ]);
    expect(s).toMatchObject({ main: 12, practice: 1, checks: 2, trials: 15, minutes: 21 });
  });
});

describe('the command line', () => {
  it('names only what differs from the defaults (plus the items), with single-condition flags when they fit', () => {
    const def = withDefaults({
      k: [2, 3],
      itemsPerK: 2,
      seed: 5,
      practice: 0,
      conditions: [{ id: 'timed', perPuzzleLimitS: 60, overallLimitS: null, display: 'text', scratchpad: false }],
    });
    expect(cliCommand(def)).toBe('npm run cli -- study link --seed 5 --k 2,3 --per-k 2 --practice 0 --time-limit 60');
  });

  it('spells out several conditions, texts and sinks, quoted for the shell', () => {
    const line = cliCommand(rich);
    expect(line).toContain('--condition fast,limit=30 --condition drawn,overall=600,display=text+drawing,scratchpad');
    expect(line).toContain(`--consent 'You **agree**; it'\\''s fine.\nSecond line.'`);
    expect(line).toContain("--redirect 'https://example.org/done?x=1'");
    expect(line).toContain('--jatos --sink server --http-sink https://a.example/rows');
    expect(line).toContain('--no-strict');
    expect(line).toContain('--order counterbalanced:3');
  });

  it('quotes words the shell would read otherwise', () => {
    expect(shellWord('2,3')).toBe('2,3');
    expect(shellWord('a b')).toBe("'a b'");
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
    expect(shellWord('$HOME')).toBe("'$HOME'");
    expect(shellWord('')).toBe("''");
  });
});

describe('loading a definition file', () => {
  it('loads a saved definition, with defaults for what it leaves out', () => {
    const r = formFromFile(JSON.stringify(rich));
    expect(r.ok && definitionFromForm(r.form)).toEqual(rich);
    const partial = formFromFile('{"seed": 3}');
    expect(partial.ok && definitionFromForm(partial.form)).toEqual({ ...DEFAULT_STUDY, seed: 3 });
  });

  it('refuses a file that is not JSON, not an object, or not a runnable study, saying why', () => {
    expect(formFromFile('nope')).toEqual({ ok: false, message: expect.stringMatching(/not JSON/) });
    expect(formFromFile('[1]')).toEqual({ ok: false, message: expect.stringMatching(/not hold a study definition/) });
    const bad = formFromFile('{"k": [11], "colour": "red"}');
    expect(bad).toEqual({ ok: false, message: expect.stringMatching(/^This study cannot run: colour: .*and 1 more/) });
  });
});

describe('kinds of study in the form', () => {
  const server = { ...DEFAULT_FORM, server: true };

  it('switches kind: the new kind’s default texts where the old ones were untouched, a written text kept', () => {
    const para = withKind(server, 'paraphrase');
    expect(para.consentText).toBe(defaultsFor('paraphrase').consentText);
    expect(para.instructionsText).toBe(defaultsFor('paraphrase').instructionsText);
    const written = withKind({ ...server, instructionsText: 'My own words.' }, 'review');
    expect(written.instructionsText).toBe('My own words.');
    expect(written.consentText).toBe(defaultsFor('review').consentText);
    expect(withKind(para, 'solve').consentText).toBe(DEFAULT_STUDY.consentText);
  });

  it('keeps what was typed for another kind off the definition, and the conditions to text', () => {
    const form = {
      ...withKind(server, 'paraphrase'),
      k: '3',
      practice: '0',
      clausesPerParticipant: '4',
      conditions: [{ ...DEFAULT_FORM.conditions[0]!, display: 'text+drawing' as const, scratchpad: true }],
    };
    const def = definitionFromForm(form);
    expect(def).toMatchObject({ kind: 'paraphrase', k: [2, 3, 4], practice: 2, clausesPerParticipant: 4 });
    expect(def.conditions[0]).toMatchObject({ display: 'text', scratchpad: false });
    expect(problemsByInput(form).all).toEqual([]);
    // Switched back, the puzzle-solving study has what was typed for it.
    expect(definitionFromForm(withKind(form, 'solve'))).toMatchObject({ kind: 'solve', k: [3], practice: 0 });
  });

  it('puts a review study’s problems beside its inputs, the stories’ beside the file', () => {
    const review = withKind(DEFAULT_FORM, 'review');
    expect(problemsByInput({ ...review, jatos: true }).byInput.get('reviewStories')).toEqual([
      expect.stringMatching(/^a review study needs stories to review/),
    ]);
    expect(inputForProblem('reviewStories.3.clause', review)).toBe('reviewStories');
    const live = { ...review, server: true, sourceStudy: 'para' };
    expect(problemsByInput(live).all).toEqual([]);
    expect(whatParticipantsDo(definitionFromForm(live))).toBe(
      'Each participant reviews 3 stories; each story gets 3 reviews, from the stories of study para the results server holds.',
    );
  });

  it('writes the command line of the kind (cli/study.test.ts runs such a line)', () => {
    const cliTested = withDefaults({
      kind: 'paraphrase',
      seed: 3,
      clauseKs: [2, 3],
      favourUncovered: true,
      maxWords: 90,
      sinks: [{ kind: 'server' }],
    });
    expect(cliCommand(cliTested)).toBe(
      'npm run cli -- study link --kind paraphrase --seed 3 --clause-k 2,3 --clauses-per-participant 3 --favour-uncovered --max-words 90 --sink server',
    );
    const form = { ...withKind(server, 'paraphrase'), clauseKs: '2,3', favourUncovered: true };
    const def = definitionFromForm(form);
    expect(cliCommand(def)).toBe(
      'npm run cli -- study link --kind paraphrase --seed 1 --clause-k 2,3 --clauses-per-participant 3 --favour-uncovered --sink server',
    );
    expect(whatParticipantsDo(def)).toBe(
      'Each participant writes a story for 3 clauses of 2, 3 facts (genders any, favouring the clauses with fewest stories so far), 5 to 120 words each.',
    );
    const stories = [{ id: 'a/1', clause: 'c1.son.female-male', seed: 2, story: 'Cy is the son of Di.' }];
    const review = definitionFromForm({
      ...withKind({ ...DEFAULT_FORM, jatos: true }, 'review'),
      studyId: 'rev',
      reviewsPerParticipant: '1',
      reviewStories: stories,
    });
    expect(cliCommand(review)).toBe(
      'npm run cli -- study link --kind review --study-id rev --seed 1 --reviews-per-participant 1 --stories rev.stories.json --jatos',
    );
  });
});
