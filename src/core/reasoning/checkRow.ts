import { CsvFormatError, type ClutrrRow } from '../formats/clutrrRow';
import { type Gender, PRED_CODE, parseWord, wordFor } from '../kinship/relations';
import { entailmentBasis, type EntailmentBasis } from './assumptions';
import { derive, maskToPredicates, type SolverFact, type Verdict, verdictFor } from './solver';

export interface RowCheck {
  readonly verdict: Verdict;
  /** Every answer word the rule base derives from the row's typed facts. */
  readonly derived: readonly string[];
  /** The search hit its path limit (the verdict may then be incomplete). */
  readonly truncated: boolean;
  /**
   * For an entailed row: decided by the sound rules, or only through an assumption rule (which
   * one, and whether any family can make the label true). Null for other verdicts, and for an
   * entailed row whose entities do not all have a gender (the family model needs them).
   */
  readonly basis: EntailmentBasis | null;
}

/**
 * Solves a row from its symbolic columns alone (story_edges, edge_types, genders, query_edge):
 * edge i has type edge_types[i]; edges without a type are left out. Throws CsvFormatError
 * naming the column when a relation word or gender is unknown.
 */
export function checkRow(row: ClutrrRow): RowCheck {
  const facts: SolverFact[] = [];
  row.edgeTypes.forEach((word, i) => {
    const edge = row.storyEdges[i];
    if (!edge) return;
    const info = parseWord(word);
    if (!info)
      throw new CsvFormatError(`"${word}" (item ${i + 1}) is not a CLUTRR relation word`, { column: 'edge_types' });
    facts.push({ from: edge[0], to: edge[1], predicate: PRED_CODE[info.predicate] });
  });
  const [a, b] = row.queryEdge;
  const bGender = row.genders[b]?.gender;
  if (bGender !== 'male' && bGender !== 'female') {
    throw new CsvFormatError(`no gender for query entity ${b}`, { column: 'genders' });
  }
  const target = parseWord(row.target);
  if (!target) throw new CsvFormatError(`"${row.target}" is not a CLUTRR relation word`, { column: 'target' });
  const { mask, truncated } = derive(row.genders.length, facts, a, b);
  const derived = maskToPredicates(mask).map((p) => wordFor(p, bGender));
  // Derived words take b's gender, so a label of the other gender is never among them.
  const verdict: Verdict = target.gender === bGender ? verdictFor(mask, PRED_CODE[target.predicate]) : 'unsupported';
  let basis: EntailmentBasis | null = null;
  if (verdict === 'entailed') {
    const genders = row.genders.map((g) => g.gender);
    if (genders.every((g): g is Gender => g === 'male' || g === 'female'))
      basis = entailmentBasis(genders, facts, a, b, PRED_CODE[target.predicate]);
  }
  return { verdict, derived, truncated, basis };
}
