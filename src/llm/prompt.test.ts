import { describe, expect, it } from 'vitest';
import { ANSWER_WORDS } from './answers';
import { fewShotExamples } from './examples';
import { fill, PROMPT_KINDS, PROMPTS, promptText } from './prompt';

const question = {
  story:
    "[Russell]'s little sister, [Gina], followed him everywhere. [Edith] and her brother [Russell] run a food truck.",
  a: 'Edith',
  b: 'Gina',
};

describe('prompts', () => {
  it.each(PROMPT_KINDS)('%s holds the story (no brackets), the question and the 18 answers', (kind) => {
    const text = promptText(kind, question);
    expect(text).toContain(
      "Russell's little sister, Gina, followed him everywhere. Edith and her brother Russell run a food truck.",
    );
    expect(text).not.toMatch(/\[|\{\{/);
    expect(text).toContain('How is Gina related to Edith?');
    expect(text).toContain(ANSWER_WORDS.join(', '));
  });

  it('few-shot carries two worked examples from the generator, the same each time', () => {
    const ex = fewShotExamples();
    expect(ex).toHaveLength(2);
    const text = promptText('few-shot', question);
    for (const e of ex) {
      expect(ANSWER_WORDS).toContain(e.answer);
      expect(text).toContain(`Story: ${e.story}\nQuestion: How is ${e.b} related to ${e.a}?\nAnswer: ${e.answer}`);
    }
    expect(text.endsWith('Question: How is Gina related to Edith?\nAnswer:')).toBe(true);
    expect(promptText('few-shot', question)).toBe(text);
  });

  it('chain of thought asks for a final answer line', () => {
    expect(promptText('cot', question)).toContain('"Answer: <word>"');
    expect(PROMPTS.cot.maxTokens).toBeGreaterThan(PROMPTS['zero-shot'].maxTokens);
  });

  it('refuses an unknown placeholder', () => {
    expect(() => fill('{{story}} {{oops}}', { story: 's' })).toThrow('{{oops}}');
  });
});
