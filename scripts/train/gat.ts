/** `npm run train -- --model gat|gat-improved|…`: the graph models' trainer, src/ml/train/gat.ts. */
export { GAT_MODELS, trainGat } from '../../src/ml/train/gat';
