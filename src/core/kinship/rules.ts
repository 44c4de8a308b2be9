import { PRED_CODE, PREDICATES, type Predicate } from './relations';

/**
 * The CLUTRR rule base: `(X, r1, Z) ∧ (Z, r2, Y) ⊢ (X, r3, Y)`, written `[r1, r2, r3]`.
 *
 * `soundInFamilies` marks the rules that hold in every family the generator builds (full
 * siblings only, spouses from outside the family). Two rules of the original rule base do not:
 * a child's uncle may be the spouse's brother (a brother-in-law, not a brother), and a child's
 * grandmother may be the spouse's mother. The solver uses all sixteen, as CLUTRR does; the
 * family closure uses only the sound ones, so that it never invents a false fact.
 */
export const RULES = [
  { body: ['child', 'child'], head: 'grand', soundInFamilies: true },
  { body: ['child', 'SO'], head: 'in-law', soundInFamilies: true },
  { body: ['child', 'sibling'], head: 'child', soundInFamilies: true },
  { body: ['child', 'inv-un'], head: 'sibling', soundInFamilies: false },
  { body: ['child', 'inv-grand'], head: 'inv-child', soundInFamilies: false },
  { body: ['inv-child', 'child'], head: 'sibling', soundInFamilies: true },
  { body: ['inv-child', 'inv-child'], head: 'inv-grand', soundInFamilies: true },
  { body: ['inv-child', 'sibling'], head: 'inv-un', soundInFamilies: true },
  { body: ['SO', 'inv-child'], head: 'inv-in-law', soundInFamilies: true },
  { body: ['SO', 'grand'], head: 'grand', soundInFamilies: true },
  { body: ['SO', 'child'], head: 'child', soundInFamilies: true },
  { body: ['sibling', 'sibling'], head: 'sibling', soundInFamilies: true },
  { body: ['sibling', 'inv-grand'], head: 'inv-grand', soundInFamilies: true },
  { body: ['sibling', 'child'], head: 'un', soundInFamilies: true },
  { body: ['sibling', 'inv-child'], head: 'inv-child', soundInFamilies: true },
  { body: ['grand', 'sibling'], head: 'grand', soundInFamilies: true },
] as const satisfies readonly {
  body: readonly [Predicate, Predicate];
  head: Predicate;
  soundInFamilies: boolean;
}[];

export type Rule = (typeof RULES)[number];

const N = PREDICATES.length + 1;

function table(filter: (r: Rule) => boolean): Uint8Array {
  const t = new Uint8Array(N * N);
  for (const r of RULES) {
    if (!filter(r)) continue;
    t[PRED_CODE[r.body[0]] * N + PRED_CODE[r.body[1]]] = PRED_CODE[r.head];
  }
  return t;
}

/** compose[r1 * 11 + r2] = r3 code, or 0 when the rule base has no rule for r1∘r2. */
export const COMPOSE: Uint8Array = table(() => true);
/** The same table restricted to rules that are sound in generated families. */
export const COMPOSE_SOUND: Uint8Array = table((r) => r.soundInFamilies);
export const COMPOSE_STRIDE = N;

/**
 * The two rules of the rule base that hold only under an assumption about the family, each with
 * the assumption in words (what `check`, the audit view and the puzzle view print).
 */
export const ASSUMPTION_RULES = {
  uncle: { body: ['child', 'inv-un'], head: 'sibling', words: "my child's uncle or aunt is my sibling" },
  grandparent: { body: ['child', 'inv-grand'], head: 'inv-child', words: "my child's grandparent is my parent" },
} as const satisfies Record<string, { body: readonly [Predicate, Predicate]; head: Predicate; words: string }>;

export type AssumptionId = keyof typeof ASSUMPTION_RULES;
export const ASSUMPTION_IDS = Object.keys(ASSUMPTION_RULES) as AssumptionId[];

/** The sound rules plus one assumption rule. */
export const composeSoundWith = (id: AssumptionId): Uint8Array =>
  table(
    (r) =>
      r.soundInFamilies || (r.body[0] === ASSUMPTION_RULES[id].body[0] && r.body[1] === ASSUMPTION_RULES[id].body[1]),
  );

/** r1 ∘ r2 under the full rule base, or undefined. */
export function compose(r1: Predicate, r2: Predicate): Predicate | undefined {
  const c = COMPOSE[PRED_CODE[r1] * N + PRED_CODE[r2]];
  return c === 0 || c === undefined ? undefined : PREDICATES[c - 1];
}
