import { appBaseUrl, modelsClient } from '../../worker/modelsClient';
import { createReportStore } from './store';

/** The report's store over the app's one models worker (shared with the puzzle view's panel). */
export const useReport = createReportStore(modelsClient, appBaseUrl);
