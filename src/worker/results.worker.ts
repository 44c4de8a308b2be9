import type { ResultsCommands } from './resultsProtocol';
import { createResultsReader } from './resultsReader';
import { installWorker } from './rpc';

/** The results dashboard's worker: reads and merges result files off the main thread (`resultsReader.ts`). */
installWorker<ResultsCommands>({ read: createResultsReader() });
