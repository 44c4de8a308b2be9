/** `npm run train -- --model rn`: the Relation Network over the story text (src/ml/text/rn.ts), trained by trainText. */
import { loadRn, Rn, RN_PAPER, type RnConfig, type RnModelJson, saveRn } from '../../src/ml/text/rn';
import { trainText } from './lstm';
import type { Trained, TrainContext } from './trainer';

/** The configurations by model id (what each is: src/ml/modelKinds.ts). */
export const RN_MODELS: Record<string, { config: RnConfig }> = {
  rn: { config: RN_PAPER },
};

export async function trainRn(ctx: TrainContext): Promise<Trained> {
  const { config } = RN_MODELS[ctx.options.model]!;
  return trainText(ctx, {
    kind: 'rn',
    config,
    make: (tokens, seed) => new Rn(config, tokens, seed),
    load: (json, weights) => loadRn(json as RnModelJson, weights),
    save: saveRn,
  });
}
