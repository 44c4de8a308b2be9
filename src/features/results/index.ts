export { ResultsView } from './ResultsView';
