/** `npm run train -- --model lstm|lstm-mean`: the text models' trainer, src/ml/train/text.ts. */
export { LSTM_MODELS, type TextModelSpec, trainLstm, trainText } from '../../src/ml/train/text';
