import { isImportedPuzzle } from '../../core/formats/toPuzzle';
import { PRED_CODE } from '../../core/kinship/relations';
import { ASSUMPTION_RULES, COMPOSE, COMPOSE_SOUND, COMPOSE_STRIDE } from '../../core/kinship/rules';
import type { ProofStep, Puzzle } from '../../core/puzzle/puzzle';
import { assumptionWords, FAMILY_WORDS } from '../../core/reasoning/assumptions';

/**
 * What the puzzle view may say about a puzzle's label. A generated puzzle's label is its answer.
 * An imported row's label is only what the file says: the audit's verdict (ImportedPuzzle.check)
 * decides whether the view may mark it right (✓) and show the file's proof as a proof.
 */
export interface LabelVerdict {
  /** `generated`, or the audit's words: entailed, assumed, impossible, ambiguous, unsupported, unchecked. */
  readonly kind: 'generated' | 'entailed' | 'assumed' | 'impossible' | 'ambiguous' | 'unsupported' | 'unchecked';
  /** The label may be marked as the answer (✓ on it, ✓/✗ on a guess). */
  readonly trusted: boolean;
  /** The file's proof may be drawn as a proof (possibly with steps marked as assumptions). */
  readonly proofShown: boolean;
  /** One short badge ("true in no family") and a sentence saying why; empty for generated puzzles. */
  readonly badge: string;
  readonly text: string;
}

const GENERATED: LabelVerdict = { kind: 'generated', trusted: true, proofShown: true, badge: '', text: '' };

/** The verdict on a puzzle's label, from the audit's check of an imported row. */
export function labelVerdict(p: Puzzle): LabelVerdict {
  if (!isImportedPuzzle(p)) return GENERATED;
  const c = p.check;
  const label = p.target.word;
  if (!c) {
    return {
      kind: 'unchecked',
      trusted: false,
      proofShown: false,
      badge: 'not checked',
      text: `The file labels this "${label}"; the row could not be checked (a query person has no gender).`,
    };
  }
  const others = c.derived.filter((w) => w !== label);
  if (c.verdict === 'unsupported') {
    return {
      kind: 'unsupported',
      trusted: false,
      proofShown: false,
      badge: 'unsupported',
      text: `The file labels this "${label}", but the rule base does not derive it from the facts (it derives ${
        c.derived.length === 0 ? 'no answer' : c.derived.join(' or ')
      }).`,
    };
  }
  if (c.verdict === 'ambiguous') {
    return {
      kind: 'ambiguous',
      trusted: false,
      proofShown: false,
      badge: 'ambiguous',
      text: `The file labels this "${label}", but the rule base derives ${others.join(' or ')} as well: the facts do not decide.`,
    };
  }
  // As labelIsAnswer: entailed, and not only through an assumption rule.
  if (!c.basis || c.basis.kind === 'sound') {
    return {
      kind: 'entailed',
      trusted: true,
      proofShown: true,
      badge: 'entailed',
      text: `Entailed: the rules that hold in every family derive exactly "${label}".`,
    };
  }
  const words = assumptionWords(c.basis);
  if (c.basis.family === 'impossible') {
    return {
      kind: 'impossible',
      trusted: false,
      proofShown: true,
      badge: FAMILY_WORDS.impossible,
      text: `The file's label "${label}" follows only through the assumption "${words}", and it is true in no family where the facts hold (each child with one mother and one father, married to each other; no one married twice).`,
    };
  }
  return {
    kind: 'assumed',
    trusted: false,
    proofShown: true,
    badge: `assumed (${FAMILY_WORDS[c.basis.family]})`,
    text: `The file's label "${label}" follows only through the assumption "${words}": true in some families where the facts hold, false in others.`,
  };
}

/** How a proof step's head follows from its body: a sound rule, an assumption rule (which), or no rule. */
export function stepRule(step: ProofStep): { kind: 'sound' | 'assumption' | 'none'; words: string } {
  const at = PRED_CODE[step.body[0].predicate] * COMPOSE_STRIDE + PRED_CODE[step.body[1].predicate];
  const head = PRED_CODE[step.head.predicate];
  if (COMPOSE_SOUND[at] === head) return { kind: 'sound', words: '' };
  if (COMPOSE[at] === head) {
    const rule = Object.values(ASSUMPTION_RULES).find(
      (r) => r.body[0] === step.body[0].predicate && r.body[1] === step.body[1].predicate,
    );
    return { kind: 'assumption', words: rule?.words ?? '' };
  }
  return { kind: 'none', words: '' };
}
