/** A trained model's correct answers on examples, in batches (the script's k lines, the panel's test files). */
import { bestClass, type ClutrrModel } from '../model';
import type { Example } from '../testData';

export async function scoreExamples(model: ClutrrModel, examples: readonly Example[], batch = 250): Promise<number> {
  let correct = 0;
  for (let i = 0; i < examples.length; i += batch) {
    const part = examples.slice(i, i + batch);
    const answers = await model.answer(part.map((e) => e.question));
    answers.forEach((a, j) => {
      if (bestClass(a.probs) === part[j]!.question.graph.label) correct++;
    });
  }
  return correct;
}
