import { describe, expect, it } from 'vitest';
import { validateTemplateData } from '../../core/text/templates';
import { clauseCells, clauseFromId, factSentences, makeClause } from './clause';
import { toTemplate } from './placeholders';

const john = makeClause(['sister', 'father'], 'male', ['Patrick', 'Sylvia', 'John']);

describe('toTemplate', () => {
  it("puts each person's chain placeholder for their name, possessives and any case included", () => {
    expect(
      toTemplate(
        john,
        'John is the proud father of the lovely Sylvia.\n Sylvia has a love-hate relationship with her brother Patrick.',
      ),
    ).toEqual({
      template:
        'ENT_2_male is the proud father of the lovely ENT_1_female. ENT_1_female has a love-hate relationship with her brother ENT_0_male.',
    });
    expect(toTemplate(john, "john took SYLVIA to see Sylvia's brother Patrick.")).toEqual({
      template: "ENT_2_male took ENT_1_female to see ENT_1_female's brother ENT_0_male.",
    });
  });

  it('gives templates the loader accepts under the clause key, for every cell', () => {
    const data: Record<string, Record<string, string[]>> = {};
    for (const cell of clauseCells([1, 2, 3])) {
      const clause = clauseFromId(cell.id, 99);
      if ('error' in clause) throw new Error(clause.error);
      const r = toTemplate(clause, factSentences(clause).join(' '));
      if (!('template' in r)) throw new Error(`${cell.id}: ${r.problem}`);
      ((data[clause.relations] ??= {})[clause.genders] ??= []).push(r.template);
    }
    const { problems, bank } = validateTemplateData(data);
    expect(problems).toEqual([]);
    // 14 stated words, 62 pairs, 364 triples.
    expect(Object.keys(bank)).toHaveLength(440);
  });

  it('reports rather than guesses', () => {
    const problem = (clause: typeof john, text: string) => {
      const r = toTemplate(clause, text);
      return 'problem' in r ? r.problem : `template ${r.template}`;
    };
    // A person met only through a pronoun, or a nickname.
    expect(problem(john, 'John is the proud father of Sylvia. She has a brother.')).toBe(
      'Patrick is never named (a pronoun or another name cannot be given a placeholder)',
    );
    expect(problem(john, 'Pat and Sylv are the children of John.')).toMatch(/^Patrick and Sylvia are never named/);
    // One name for two people.
    const twoAnns = makeClause(['sister', 'sister'], 'female', ['Ann', 'Ann', 'Beth']);
    expect(problem(twoAnns, "Ann is Ann's sister and Beth is Ann's sister.")).toBe(
      'the name Ann belongs to two people (1 and 2 in the chain)',
    );
    // Someone outside the facts, who would keep their name in every generated story.
    expect(problem(john, 'John, father of Sylvia, met Mary. Sylvia has a brother Patrick.')).toBe(
      'the story names Mary, who is not in the facts',
    );
    expect(problem(john, '[John] is the father of Sylvia. Sylvia has a brother Patrick.')).toMatch(/brackets/);
    expect(problem(john, 'ENT_2_male is the father of Sylvia. Sylvia has a brother Patrick.')).toMatch(/placeholder/);
    expect(problem(john, '  ')).toBe('the story is empty');
  });

  it('does not take a longer name or a word for a name', () => {
    const ann = makeClause(['mother'], 'male', ['Ben', 'Ann']);
    expect(toTemplate(ann, 'Annabel met Ann, the mother of Ben, and Benny.')).toEqual({
      template: 'Annabel met ENT_1_female, the mother of ENT_0_male, and Benny.',
    });
  });
});
