import { appBaseUrl, modelsClient } from '../../worker/modelsClient';
import { appStoryMaker, createCompareStore } from './modelsStore';

/** The dashboard's model comparison over the app's one models worker. */
export const useCompare = createCompareStore(modelsClient, appStoryMaker(), appBaseUrl);
