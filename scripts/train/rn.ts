/** `npm run train -- --model rn`: the Relation Network's trainer, src/ml/train/text.ts. */
export { RN_MODELS, trainRn } from '../../src/ml/train/text';
