import { planAdaptivePower } from '../study/simulate/adaptivePower';
import { planPower } from '../study/simulate/power';
import type { PowerCommands } from './powerProtocol';
import { installWorker } from './rpc';

/**
 * The power planner's worker: dispatches `plan` to the pure `planPower` (progress: sizes tried)
 * and `adaptive` to `planAdaptivePower` (progress: simulated people run).
 */
installWorker<PowerCommands>({
  plan: (body, ctx) => planPower(body, (tried) => ctx.progress(tried, tried + 1)),
  adaptive: (body, ctx) => planAdaptivePower(body, (done, total) => ctx.progress(done, total)),
});
