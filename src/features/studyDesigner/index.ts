export { StudyDesignerView } from './StudyDesignerView';
