export { DatasetBuilderView } from './DatasetBuilderView';
