/**
 * The trainers of the models that read text through the tokeniser: the BiLSTMs, the Relation
 * Network and MAC (`trainText`). A batch's token tensors are made when its step runs and
 * disposed by it; the epoch holds only the stories' strings.
 */
import * as tf from '@tensorflow/tfjs';
import { createRng, type Rng } from '../../core/random/rng';
import type { TextItem } from '../encoding';
import type { ModelKind } from '../model';
import type { Example } from '../testData';
import { loadLstm, Lstm, LSTM_MEAN, LSTM_PAPER, type LstmConfig, type LstmModelJson, saveLstm } from '../text/lstm';
import { loadMac, Mac, MAC_PAPER, type MacConfig, type MacModelJson, saveMac } from '../text/mac';
import { loadRn, Rn, RN_PAPER, type RnConfig, type RnModelJson, saveRn } from '../text/rn';
import { evaluate, type TextNet, trainStepInParts } from '../text/textNet';
import { learnTokenizer, MAX_ENTITIES, type TextTokenizer } from '../text/tokens';
import type { Trained, TrainContext } from './context';
import { runEpochs } from './epochs';
import { variablesKeeper } from './keepBest';

/** The text models' configurations by model id (what each is: src/ml/modelKinds.ts). */
export const LSTM_MODELS: Record<string, { config: LstmConfig }> = {
  lstm: { config: LSTM_PAPER },
  'lstm-mean': { config: LSTM_MEAN },
};
export const RN_MODELS: Record<string, { config: RnConfig }> = {
  rn: { config: RN_PAPER },
};
export const MAC_MODELS: Record<string, { config: MacConfig }> = {
  mac: { config: MAC_PAPER },
};

/** Words seen fewer times than this in the training stories are word pieces (tokens.ts). */
const MIN_WORD_COUNT = 2;
/** Byte-pair merges learned from the training words (pieces beyond single characters). */
const MAX_MERGES = 400;

/**
 * One epoch's batches: every story gets a fresh anonymisation seed; stories are sorted by length
 * within windows of 20 batches (little padding, yet mixed), and the batches shuffled.
 */
function epochBatches(train: readonly Example[], size: number, epoch: number, seed: string, rng: Rng): TextItem[][] {
  const items: TextItem[] = rng.shuffle([...train]).map((e, i) => ({
    story: e.story,
    queryNames: e.question.queryNames,
    label: e.question.graph.label,
    seed: `${seed}/anonymise/${epoch}/${i}`,
  }));
  const window = size * 20;
  const batches: TextItem[][] = [];
  for (let w = 0; w < items.length; w += window) {
    const part = items.slice(w, w + window).sort((p, q) => p.story.length - q.story.length);
    for (let i = 0; i < part.length; i += size) batches.push(part.slice(i, i + size));
  }
  return rng.shuffle(batches);
}

/**
 * A batch's stories in consecutive parts of at most `maxChars` characters (each part one story at
 * least); the whole batch when no limit is set or it fits.
 */
export function partsOf(items: readonly TextItem[], maxChars: number | undefined): TextItem[][] {
  if (maxChars === undefined) return [[...items]];
  const parts: TextItem[][] = [];
  let part: TextItem[] = [];
  let chars = 0;
  for (const item of items) {
    if (part.length > 0 && chars + item.story.length > maxChars) {
      parts.push(part);
      part = [];
      chars = 0;
    }
    part.push(item);
    chars += item.story.length;
  }
  if (part.length > 0) parts.push(part);
  return parts;
}

type AnyTextNet = TextNet<{ readonly size: number; readonly labels: Int32Array }, unknown> & {
  readonly tokens: TextTokenizer;
};

/** A text model kind for trainText: its config (the dropouts it trains with), how to make and save one. */
export interface TextModelSpec<M extends AnyTextNet> {
  readonly kind: ModelKind;
  readonly config: { readonly wordDropout: number; readonly pieceDropout?: number };
  make(tokens: TextTokenizer, seed: string): M;
  /** The model of a folder's model.json and weights.bin (for `--resume`). */
  load(modelJson: unknown, weights: ArrayBuffer): M;
  save(model: M, name: string): Promise<{ readonly modelJson: object; readonly weights: ArrayBuffer }>;
}

/**
 * Trains a text model: the tokeniser learned from the training stories, Adam with gradient
 * clipping over epochs of length-sorted batches (fresh anonymisation per story and epoch, word
 * and piece dropout), the held-out accuracy after each epoch; returns the saved model.
 */
export async function trainText<M extends AnyTextNet>(ctx: TrainContext, spec: TextModelSpec<M>): Promise<Trained> {
  const { options, data, log } = ctx;
  const { config } = spec;
  const { seed } = options;
  // A resumed run goes on from the folder's weights and tokeniser (Adam's moments start afresh).
  const resumed = ctx.resume ? spec.load(ctx.resume.modelJson, ctx.resume.weights) : undefined;
  // The tokens of the training stories only: test stories' unseen words become word pieces.
  const tokens =
    resumed?.tokens ??
    learnTokenizer(
      data.train.map((e) => e.story),
      { minWordCount: MIN_WORD_COUNT, maxMerges: MAX_MERGES },
    );
  const json = tokens.toJson();
  const stats = json.kind === 'pieces' ? json.stats : undefined;
  log(`  tokens: ${tokens.size} (${MAX_ENTITIES} entity tokens; ${JSON.stringify(stats)})\n`);
  const dev = data.dev.map((e) => e.question);
  const model = resumed ?? spec.make(tokens, `${seed}/init`);
  const optimizer = tf.train.adam(options.learningRate);
  const rng = createRng(seed, 'train');
  const t0 = performance.now();
  const { history, end, bestEpoch } = await runEpochs(
    options,
    { log, ...ctx.hooks },
    (epoch) =>
      epochBatches(data.train, options.batchSize, epoch, seed, rng).map((items) => () => {
        const dropout = { wordDropout: config.wordDropout, pieceDropout: config.pieceDropout ?? 0, rng };
        const parts = partsOf(items, options.stepChars).map((part) => model.batch(part, dropout));
        return { ...trainStepInParts(model, optimizer, parts, rng), size: items.length };
      }),
    () => evaluate(model, dev),
    ctx.resume?.history,
    options.keepBest ? variablesKeeper(model.variables) : undefined,
  );

  const { modelJson, weights } = await spec.save(model, options.model);
  optimizer.dispose();
  model.dispose();
  return {
    kind: spec.kind,
    modelJson,
    weights,
    config,
    encoding: {
      module: 'src/ml/encoding.ts',
      tokens: 'src/ml/text/tokens.ts',
      text: '[Name] → @ent<k>, a fresh seeded assignment per story (per epoch in training; seeded by the question at inference); text normalised (NFKD without accents, lower case), split into words and punctuation; a word seen fewer than minWordCount times in training becomes word pieces (byte-pair merges learned from the training words, every character a piece), an unknown character <unk>',
      vocabulary: tokens.size,
      entityTokens: MAX_ENTITIES,
      maxMerges: MAX_MERGES,
      ...stats,
    },
    training: {
      optimizer: 'adam',
      gradientClipNorm: 1,
      batches: 'sorted by length within windows of 20 batches, shuffled',
      seconds: Math.round((performance.now() - t0) / 1000),
      history,
      // --keep-best: the epoch whose weights these are.
      ...(bestEpoch !== undefined ? { keptEpoch: bestEpoch } : {}),
    },
    end,
  };
}

export function trainLstm(ctx: TrainContext): Promise<Trained> {
  const { config } = LSTM_MODELS[ctx.options.model]!;
  return trainText(ctx, {
    kind: 'lstm',
    config,
    make: (tokens, seed) => new Lstm(config, tokens, seed),
    load: (json, weights) => loadLstm(json as LstmModelJson, weights),
    save: saveLstm,
  });
}

export function trainRn(ctx: TrainContext): Promise<Trained> {
  const { config } = RN_MODELS[ctx.options.model]!;
  return trainText(ctx, {
    kind: 'rn',
    config,
    make: (tokens, seed) => new Rn(config, tokens, seed),
    load: (json, weights) => loadRn(json as RnModelJson, weights),
    save: saveRn,
  });
}

export function trainMac(ctx: TrainContext): Promise<Trained> {
  const { config } = MAC_MODELS[ctx.options.model]!;
  return trainText(ctx, {
    kind: 'mac',
    config,
    make: (tokens, seed) => new Mac(config, tokens, seed),
    load: (json, weights) => loadMac(json as MacModelJson, weights),
    save: saveMac,
  });
}
