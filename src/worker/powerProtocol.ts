import type { PowerAnswer, PowerPlan } from '../study/simulate/power';

/**
 * Messages of the power planner's worker (`power.worker.ts`), served through `rpc.ts`: one
 * command, `plan`, that runs the Monte Carlo of `src/study/simulate/power.ts` (`planPower`) off the
 * main thread, with progress as sizes are tried; the answer is the power per analysis and the
 * participants each needs for 80%.
 */
export type PowerCommands = {
  readonly plan: { readonly body: PowerPlan; readonly chunk: never; readonly result: PowerAnswer };
};
