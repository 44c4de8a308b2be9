// Only for src/features/puzzle/Controls.tsx, which is being restructured (issue 7): everything
// else imports the defining module. Delete this file once Controls.tsx does so too.
export { hrefForRoute } from './routes';
export { selectSettings, selectStatus, selectTemplates } from './selectors';
export { DEFAULT_TEXT, K_MAX, K_MIN, searchFromSettings } from './settings';
export { useStore } from './useStore';
