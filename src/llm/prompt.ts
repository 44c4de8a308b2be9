/**
 * The prompt set (one readable file per template in ./prompts) and how a question fills it.
 * The text returned is exactly what is sent as the one user message, and is kept per item.
 */
import { ANSWER_WORDS } from './answers';
import { fewShotExamples, type LlmQuestion } from './examples';
import { CHAIN_OF_THOUGHT } from './prompts/chainOfThought';
import { FEW_SHOT, FEW_SHOT_EXAMPLE } from './prompts/fewShot';
import { ZERO_SHOT } from './prompts/zeroShot';

export type { LlmQuestion } from './examples';

export const PROMPT_KINDS = ['zero-shot', 'few-shot', 'cot'] as const;
export type PromptKind = (typeof PROMPT_KINDS)[number];

export interface PromptSpec {
  readonly label: string;
  /** The template, with {{placeholders}}. */
  readonly template: string;
  /** Where the template lives, for the reader who wants to copy it. */
  readonly file: string;
  /** A sensible max_tokens when none is given: a word, or room to reason. */
  readonly maxTokens: number;
}

export const PROMPTS = {
  'zero-shot': { label: 'Zero-shot', template: ZERO_SHOT, file: 'src/llm/prompts/zeroShot.ts', maxTokens: 16 },
  'few-shot': {
    label: 'Few-shot (2 worked examples)',
    template: FEW_SHOT,
    file: 'src/llm/prompts/fewShot.ts',
    maxTokens: 16,
  },
  cot: {
    label: 'Chain of thought',
    template: CHAIN_OF_THOUGHT,
    file: 'src/llm/prompts/chainOfThought.ts',
    maxTokens: 768,
  },
} as const satisfies Record<PromptKind, PromptSpec>;

export function isPromptKind(s: string): s is PromptKind {
  return (PROMPT_KINDS as readonly string[]).includes(s);
}

/** Replaces every `{{name}}` by its value; an unknown placeholder is an error (a typo in a template). */
export function fill(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`prompt template: no value for {{${name}}}`);
    return v;
  });
}

/** "How is Gina related to Edith?" */
export const questionText = (q: Pick<LlmQuestion, 'a' | 'b'>) => `How is ${q.b} related to ${q.a}?`;

const unbracket = (text: string) => text.replace(/\[([^\]]+)\]/g, '$1');

function values(q: LlmQuestion): Record<string, string> {
  const a = unbracket(q.a);
  const b = unbracket(q.b);
  return {
    story: unbracket(q.story).trim(),
    question: questionText({ a, b }),
    a,
    b,
    answers: ANSWER_WORDS.join(', '),
  };
}

/** The exact text sent for a question under a prompt kind. */
export function promptText(kind: PromptKind, q: LlmQuestion): string {
  const v = values(q);
  if (kind === 'few-shot') {
    v.examples = fewShotExamples()
      .map((e) => fill(FEW_SHOT_EXAMPLE, { ...values(e), answer: e.answer }))
      .join('\n\n');
  }
  return fill(PROMPTS[kind].template, v);
}
