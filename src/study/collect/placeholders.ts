/**
 * From an accepted story to a template: each person's name becomes the placeholder of their
 * place in the chain, `ENT_<i>_<gender>` (the original AMT form, read by `generate --templates`).
 * Anything that would make the placement a guess is refused with the reason, never patched:
 * a person named nowhere (a pronoun alone has no placeholder), one name for two people, a name
 * of someone outside the facts, text that already holds a placeholder or brackets.
 */
import { templateShapeProblems } from '../../core/text/templates';
import type { Clause } from './clause';
import { nameMentions, otherNames } from './checks';

export type TemplateResult = { readonly template: string } | { readonly problem: string };

/**
 * The story as a template of the clause's key (`clause.relations` / `clause.genders`), or why it
 * cannot be one. White space is collapsed to single spaces; nothing else is changed but the names.
 */
export function toTemplate(clause: Clause, text: string): TemplateResult {
  const story = text.replace(/\s+/g, ' ').trim();
  if (story === '') return { problem: 'the story is empty' };
  if (/ENT_/.test(story)) return { problem: 'the story already holds a placeholder (ENT_…)' };
  if (/[[\]{}]/.test(story)) return { problem: 'the story has brackets or braces, which the generator adds itself' };
  const seen = new Map<string, number>();
  for (const [i, p] of clause.people.entries()) {
    const key = p.name.toLowerCase();
    const other = seen.get(key);
    if (other !== undefined) {
      return { problem: `the name ${p.name} belongs to two people (${other + 1} and ${i + 1} in the chain)` };
    }
    seen.set(key, i);
  }
  const mentions = nameMentions(clause, story);
  const unnamed = clause.people.filter((_, i) => !mentions.some((m) => m.person === i)).map((p) => p.name);
  if (unnamed.length > 0) {
    return {
      problem: `${unnamed.join(' and ')} ${unnamed.length > 1 ? 'are' : 'is'} never named (a pronoun or another name cannot be given a placeholder)`,
    };
  }
  const strangers = otherNames(clause, story);
  if (strangers.length > 0) {
    return {
      problem: `the story names ${strangers.join(', ')}, who ${strangers.length > 1 ? 'are' : 'is'} not in the facts`,
    };
  }
  let template = '';
  let at = 0;
  for (const m of mentions) {
    const p = clause.people[m.person]!;
    template += `${story.slice(at, m.at)}ENT_${m.person}_${p.gender}`;
    at = m.end;
  }
  template += story.slice(at);
  const wrong = templateShapeProblems(
    template,
    clause.people.map((p) => p.gender),
  );
  if (wrong.length > 0) return { problem: `the template would be malformed: ${wrong.join('; ')}` };
  return { template };
}
