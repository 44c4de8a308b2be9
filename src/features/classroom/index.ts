export { ClassroomView } from './ClassroomView';
