/**
 * Few-shot: the zero-shot prompt after two worked examples ({{examples}}: each a story, its
 * question and its answer, made by our own generator from a fixed seed: src/llm/examples.ts).
 * Placeholders: {{examples}}, {{story}}, {{question}}, {{a}}, {{b}}, {{answers}}.
 */
export const FEW_SHOT = `Read each story about a family and answer the question about two of its people.
Answer with exactly one of these words: {{answers}}.

{{examples}}

Story: {{story}}
Question: {{question}}
Answer:`;

/** One worked example inside {{examples}}. Placeholders: {{story}}, {{question}}, {{answer}}. */
export const FEW_SHOT_EXAMPLE = `Story: {{story}}
Question: {{question}}
Answer: {{answer}}`;
