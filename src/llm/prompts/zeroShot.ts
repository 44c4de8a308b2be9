/**
 * Zero-shot: the story, the question and the 18 answers; one word back. Placeholders:
 * {{story}} (names without CLUTRR's brackets), {{question}}, {{a}}, {{b}}, {{answers}}.
 */
export const ZERO_SHOT = `Read the story about a family and answer the question about two of its people.

Story: {{story}}

Question: {{question}}

Answer with exactly one of these words: {{answers}}.
Reply with the word only.`;
