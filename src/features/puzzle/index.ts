export { PuzzleView } from './PuzzleView';
