import type { Gender, PredCode } from '../kinship/relations';
import { ASSUMPTION_IDS, ASSUMPTION_RULES, type AssumptionId, composeSoundWith } from '../kinship/rules';
import { labelPossible } from './familyModel';
import { bit, DEFAULT_PATH_LIMIT, derive, ruleSet, type RuleSet, type SolverFact } from './solver';

/**
 * Why an entailed label is entailed. `sound`: the rules that hold in every family decide it.
 * `assumed`: only a rule that holds under an assumption does (CLUTRR's rule base has two, see
 * ASSUMPTION_RULES); `rules` are the assumption rules that decide it (each alone, with the sound
 * rules, or all of them together when `together`), and `family` says whether some family of
 * CLUTRR's family model makes the facts and the label true (see familyModel.ts).
 */
export type EntailmentBasis =
  | { readonly kind: 'sound' }
  | {
      readonly kind: 'assumed';
      readonly rules: readonly AssumptionId[];
      readonly together: boolean;
      readonly family: 'possible' | 'impossible' | 'undecided';
    };

const WITH_ONE: Readonly<Record<AssumptionId, RuleSet>> = Object.fromEntries(
  ASSUMPTION_IDS.map((id) => [id, ruleSet(composeSoundWith(id))]),
) as Record<AssumptionId, RuleSet>;

/**
 * The basis of a label the full rule base entails from the facts (the caller has checked that):
 * "b is a's target" over story nodes 0..genders.length-1.
 */
export function entailmentBasis(
  genders: readonly Gender[],
  facts: readonly SolverFact[],
  a: number,
  b: number,
  target: PredCode,
): EntailmentBasis {
  const n = genders.length;
  const sound = derive(n, facts, a, b, DEFAULT_PATH_LIMIT, true).mask;
  // Sound rules derive a subset of what all rules derive: exactly the target, or nothing.
  if (sound !== 0) return { kind: 'sound' };
  const alone = ASSUMPTION_IDS.filter(
    (id) => derive(n, facts, a, b, DEFAULT_PATH_LIMIT, WITH_ONE[id]).mask === bit(target),
  );
  const answer = labelPossible(genders, facts, a, b, target);
  return {
    kind: 'assumed',
    rules: alone.length > 0 ? alone : ASSUMPTION_IDS,
    together: alone.length === 0,
    family: answer.verdict,
  };
}

/** The assumption rules of a basis in words: "my child's uncle or aunt is my sibling". */
export function assumptionWords(basis: EntailmentBasis): string {
  if (basis.kind === 'sound') return '';
  return basis.rules.map((id) => ASSUMPTION_RULES[id].words).join(basis.together ? ' and ' : ' or ');
}

/** How the family-model answer reads: "possible", "true in no family". */
export const FAMILY_WORDS = {
  possible: 'possible',
  impossible: 'true in no family',
  undecided: 'undecided',
} as const;

/** One line for a basis: "sound rules", or "assumed (true in no family): my child's grandparent is my parent". */
export function basisLine(basis: EntailmentBasis): string {
  if (basis.kind === 'sound') return 'sound rules';
  return `assumed (${FAMILY_WORDS[basis.family]}): ${assumptionWords(basis)}`;
}
