import type { ResultsWorkerCommands } from './resultsProtocol';
import { createIrtCommand } from './resultsIrt';
import { createResultsReader } from './resultsReader';
import { installWorker } from './rpc';

/**
 * The results dashboard's worker: reads and merges result files off the main thread
 * (`resultsReader.ts`), and fits item response models to the merged rows (`resultsIrt.ts`).
 */
const read = createResultsReader();
installWorker<ResultsWorkerCommands>({ read, irt: createIrtCommand(read.merged) });
