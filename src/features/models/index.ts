export { ModelsView } from './ModelsView';
