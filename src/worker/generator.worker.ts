/// <reference lib="webworker" />
import { handlers } from './handlers';
import type { GeneratorCommands } from './protocol';
import { installWorker } from './rpc';

installWorker<GeneratorCommands>(handlers);
