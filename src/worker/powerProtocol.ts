import type { AdaptivePowerAnswer, AdaptivePowerPlan } from '../study/simulate/adaptivePower';
import type { PowerAnswer, PowerPlan } from '../study/simulate/power';

/**
 * Messages of the power planner's worker (`power.worker.ts`), served through `rpc.ts`: one
 * command, `plan`, that runs the Monte Carlo of `src/study/simulate/power.ts` (`planPower`) off the
 * main thread, with progress as sizes are tried; the answer is the power per analysis and the
 * participants each needs for 80%; and `adaptive`, an adaptive study's planner
 * (`src/study/simulate/adaptivePower.ts`, `planAdaptivePower`: progress as simulated people are run).
 */
export type PowerCommands = {
  readonly plan: { readonly body: PowerPlan; readonly chunk: never; readonly result: PowerAnswer };
  readonly adaptive: {
    readonly body: AdaptivePowerPlan;
    readonly chunk: never;
    readonly result: AdaptivePowerAnswer;
  };
};
