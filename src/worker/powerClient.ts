import type { AdaptivePowerAnswer, AdaptivePowerPlan } from '../study/simulate/adaptivePower';
import type { PowerAnswer, PowerPlan } from '../study/simulate/power';
import type { PowerCommands } from './powerProtocol';
import { RpcClient, type WorkerLike } from './rpc';

/**
 * The designer's side of the power worker: `plan` runs a plan; a newer plan supersedes an older
 * one (its promise rejects with CancelledError); `stop` ends the worker (a plan under way is
 * synchronous inside it) and the next plan starts a fresh one.
 */
export class PowerClient {
  private readonly client: RpcClient<PowerCommands>;

  constructor(
    spawn: () => WorkerLike = () =>
      new Worker(new URL('./power.worker.ts', import.meta.url), { type: 'module', name: 'power' }),
  ) {
    this.client = new RpcClient<PowerCommands>(spawn, 'power planner');
  }

  plan(body: PowerPlan): Promise<PowerAnswer> {
    return this.client.latest('plan', 'plan', body);
  }

  /** An adaptive study's plan (supersedes any plan under way, of either kind). */
  adaptive(body: AdaptivePowerPlan): Promise<AdaptivePowerAnswer> {
    return this.client.latest('plan', 'adaptive', body);
  }

  stop(): void {
    this.client.reset();
  }
}
