/**
 * Chain-of-thought: the model reasons step by step, then ends with a fixed answer line that
 * extraction looks for first (src/llm/answers.ts; without it, the last relation stated is taken).
 * Placeholders: {{story}}, {{question}}, {{a}}, {{b}}, {{answers}}.
 */
export const CHAIN_OF_THOUGHT = `Read the story about a family and answer the question about two of its people.

Story: {{story}}

Question: {{question}}

Think step by step: follow the family relations stated in the story from {{a}} to {{b}}, one link at a time.
Then write a last line of the form "Answer: <word>", where <word> is exactly one of: {{answers}}.`;
