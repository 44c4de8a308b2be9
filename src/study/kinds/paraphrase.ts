/**
 * Paraphrase collection: each participant gets their own clauses (picked by study and session
 * seed, or with the results server's stories per clause when the study favours the least
 * covered) and writes a story for each; the live checks run as they type, and the text is kept
 * as a draft across reloads until its row is committed.
 */
import { checkParaphrase, type Problem } from '../collect/checks';
import { type Clause, clauseFromId, clauseQuery, pickClauses } from '../collect/clause';
import { paraphraseFields } from '../collect/rows';
import type { StudyDefinition } from '../definition/types';
import type { ResultRow } from '../results/results';
import { ownItem } from '../schedule/items';
import type { ParaphraseScreen } from './screens';
import { contentKey } from './solve';
import type { KindSpec } from './types';

/** The live checks of a paraphrase, with the study's length range. */
const checks = (def: StudyDefinition, clause: Clause, text: string): Problem[] =>
  checkParaphrase(clause, text, { minWords: def.minWords, maxWords: def.maxWords });

/** The paraphrase as typed, with the live checks run on it. */
export const write = (s: ParaphraseScreen, text: string, def: StudyDefinition): ParaphraseScreen => ({
  ...s,
  text,
  problems: checks(def, s.clause, text),
});

/**
 * Characters a written story may have in a study of `maxWords` words: generous for long words and
 * punctuation, so a study's stored bytes stay bounded by its schedule rather than by the schema.
 */
export const storyCharacters = (maxWords: number) => Math.max(400, maxWords * 40);

/** `story: <problem>` when a paraphrase row's text is longer than its study could take, or undefined. */
export function storyLengthProblem(def: StudyDefinition, row: ResultRow): string | undefined {
  const most = storyCharacters(def.maxWords);
  return row.story.length > most
    ? `story: ${row.story.length} characters, more than a story of at most ${def.maxWords} words takes here (${most})`
    : undefined;
}

/**
 * `<field>: <problem>` for a paraphrase row whose clause fields are wrong, or undefined: it names
 * a real clause (its `puzzle_id` and `seed` rebuild it) of a size and genders the study collects,
 * and its `k`, `query_a`, `query_b` and `gold` are that clause's.
 */
export function paraphraseRowProblem(def: StudyDefinition, row: ResultRow): string | undefined {
  const clause = clauseFromId(row.puzzle_id, row.seed);
  if ('error' in clause) return `puzzle_id: ${clause.error}`;
  if (!def.clauseKs.includes(clause.k)) {
    return `puzzle_id: clause ${row.puzzle_id} has ${clause.k} facts; study "${def.studyId}" collects clauses of ${def.clauseKs.join(', ')}`;
  }
  if (def.clauseGenders === 'mixed' && new Set(clause.people.map((p) => p.gender)).size < 2) {
    return `puzzle_id: clause ${row.puzzle_id} has people of one gender; study "${def.studyId}" collects mixed ones`;
  }
  const q = clauseQuery(clause);
  const expected = {
    k: clause.k,
    query_a: clause.people[q.a]!.name,
    query_b: clause.people[q.b]!.name,
    gold: q.word,
  } as const;
  for (const [field, want] of Object.entries(expected) as [keyof typeof expected, string | number][]) {
    if (row[field] !== want) {
      return `${field}: ${JSON.stringify(row[field])} is not what clause ${row.puzzle_id} with seed ${row.seed} has (${JSON.stringify(want)})`;
    }
  }
  return undefined;
}

const NO_ITEMS = { practice: [], main: [], checks: [] } as const;

export const PARAPHRASE = {
  kind: 'paraphrase',
  words: ['story', 'stories'],
  collects: true,

  sharedItems: () => NO_ITEMS,
  // The item's puzzle id is the clause id and its seed the clause seed (which names the people).
  ownItems: (def, who) => pickClauses(def.seed, who.sessionSeed, def).map((c) => ownItem(c.id, c.seed, c.k)),
  liveItems: () => false,
  coverage: {
    wanted: (def) => def.favourUncovered,
    items: (def, sessionSeed, coverage) =>
      pickClauses(def.seed, sessionSeed, def, coverage).map((c) => ownItem(c.id, c.seed, c.k)),
  },
  writesStories: true,

  screen: 'paraphrase',
  generated: false,
  materialKey: contentKey,
  pageMaterials(_def, trials) {
    const clauses = new Map<string, Clause>();
    for (const { item } of trials) {
      const clause = clauseFromId(item.puzzleId, item.seed);
      if ('error' in clause) return `This study cannot be shown: ${clause.error}.`;
      clauses.set(contentKey(item), clause);
    }
    return clauses;
  },
  blank: (timing, clause: Clause, def) => ({
    kind: 'paraphrase',
    ...timing,
    clause,
    text: '',
    problems: checks(def, clause, ''),
  }),
  draft: { restore: write },
  ready: (s) => s.problems.length === 0 && s.text.trim() !== '',
  answer(s, endedOn, def) {
    const passed = s.text.trim() !== '' && checks(def, s.clause, s.text).length === 0;
    const { query_a, query_b, gold, response, correct, difficulty, story } = paraphraseFields(
      s.clause,
      s.text,
      passed,
      endedOn,
    );
    return { query_a, query_b, gold, response, correct, difficulty, story };
  },
  feedback: () => null,

  // With `favourUncovered` the page picked its clauses with the coverage it read, which the server
  // cannot replay: the clause is checked on its own (`rowProblem`).
  fixesItem: (def) => !def.favourUncovered,
  rowProblem: (def, _item, row) => storyLengthProblem(def, row) ?? paraphraseRowProblem(def, row),

  designer: {
    summaryHeading: 'Stories to collect',
    participantTask(def) {
      const favour = def.favourUncovered ? ', favouring the clauses with fewest stories so far' : '';
      return `Each participant writes a story for ${def.clausesPerParticipant} clause${def.clausesPerParticipant === 1 ? '' : 's'} of ${def.clauseKs.join(', ')} fact${def.clauseKs.length === 1 && def.clauseKs[0] === 1 ? '' : 's'} (genders ${def.clauseGenders}${favour}), ${def.minWords} to ${def.maxWords} words each.`;
    },
    assignmentLegend: 'Assignment',
    orderFields: false,
    displays: false,
    storiesFile: false,
  },
} as const satisfies KindSpec<ParaphraseScreen, Clause>;
