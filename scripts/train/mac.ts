/** `npm run train -- --model mac`: the MAC network's trainer, src/ml/train/text.ts. */
export { MAC_MODELS, trainMac } from '../../src/ml/train/text';
