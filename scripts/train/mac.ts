/** `npm run train -- --model mac`: the MAC network behind a BiLSTM over the story text (src/ml/text/mac.ts), trained by trainText. */
import { loadMac, Mac, MAC_PAPER, type MacConfig, type MacModelJson, saveMac } from '../../src/ml/text/mac';
import { trainText } from './lstm';
import type { Trained, TrainContext } from './trainer';

/** The configurations by model id (what each is: src/ml/modelKinds.ts). */
export const MAC_MODELS: Record<string, { config: MacConfig }> = {
  mac: { config: MAC_PAPER },
};

export async function trainMac(ctx: TrainContext): Promise<Trained> {
  const { config } = MAC_MODELS[ctx.options.model]!;
  return trainText(ctx, {
    kind: 'mac',
    config,
    make: (tokens, seed) => new Mac(config, tokens, seed),
    load: (json, weights) => loadMac(json as MacModelJson, weights),
    save: saveMac,
  });
}
