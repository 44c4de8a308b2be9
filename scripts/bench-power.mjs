#!/usr/bin/env node
// The designer's power planner, timed in Node on the paper's design (Table 3's accuracy at
// k = 2..6, 5 items per k, between-person SD 1 log-odds, a condition difference of 0.5 log-odds):
// one power figure of 1,000 simulated studies at the planned 20 participants (`powerAt`), and the
// whole plan with its search for the participants each analysis needs (`planPower`), the same
// pure code the designer's worker runs. Prints a table; asserts nothing (timings belong here,
// not in tests). The goal: under 5 s for 1,000 studies.
//
//   node scripts/bench-power.mjs [--runs 3] [--simulations 1000]
import os from 'node:os';
import { opt } from './benchKit.mjs';
import { importBundled } from './bundle.mjs';

const RUNS = Number(opt('runs', '3'));
const SIMULATIONS = Number(opt('simulations', '1000'));

const { planPower, powerAt } = await importBundled({
  entry: 'src/study/simulate/power.ts',
  outfile: 'dist-cli/bench-power.mjs',
  sources: ['src/core', 'src/study'],
});
const { PAPER_TABLE3 } = await importBundled({
  entry: 'src/study/results/paper.ts',
  outfile: 'dist-cli/bench-power-paper.mjs',
  sources: ['src/study/results'],
});

const plan = {
  accuracy: PAPER_TABLE3.map((r) => ({ k: r.k, accuracy: r.accuracy })),
  participants: 20,
  itemsPerK: 5,
  spread: 1,
  conditionEffect: 0.5,
  simulations: SIMULATIONS,
  seed: 1,
};

const time = (f) => {
  const t0 = performance.now();
  const value = f();
  return { ms: performance.now() - t0, value };
};

console.log(
  `machine: ${os.cpus()[0]?.model ?? 'unknown cpu'} × ${os.cpus().length}, load ${os.loadavg()[0].toFixed(1)}, node ${process.version}`,
);
for (let r = 0; r < RUNS; r++) {
  const one = time(() => powerAt(plan, plan.participants));
  const all = time(() => planPower(plan));
  const a = all.value;
  console.log(
    `run ${r + 1}: ${SIMULATIONS} studies of 20 people: ${one.ms.toFixed(0)} ms` +
      ` | whole plan (${a.studies} studies): ${all.ms.toFixed(0)} ms` +
      ` | power decline ${a.power.decline.toFixed(3)} contrast ${a.power.contrast.toFixed(3)} conditions ${a.power.conditions.toFixed(3)}` +
      ` | N for 80%: decline ${a.needed.decline} contrast ${a.needed.contrast} conditions ${a.needed.conditions}`,
  );
}
