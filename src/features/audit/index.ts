export { AuditView } from './AuditView';
