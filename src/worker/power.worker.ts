import { planPower } from '../study/simulate/power';
import type { PowerCommands } from './powerProtocol';
import { installWorker } from './rpc';

/** The power planner's worker: dispatches `plan` to the pure `planPower` (progress: sizes tried). */
installWorker<PowerCommands>({
  plan: (body, ctx) => planPower(body, (tried) => ctx.progress(tried, tried + 1)),
});
