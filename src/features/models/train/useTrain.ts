import { modelsClient } from '../../../worker/modelsClient';
import { trainClient } from '../../../worker/trainClient';
import { useReport } from '../useReport';
import { createTrainStore } from './trainStore';

/** The Train panel's store over the app's train worker and its one models worker. */
export const useTrain = createTrainStore(trainClient, modelsClient, () => void useReport.getState().reload());
