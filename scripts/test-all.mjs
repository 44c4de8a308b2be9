#!/usr/bin/env node
// Runs every check in order — types, lint, unit and property tests, the production build and
// the end-to-end tests in Chromium — and ends with one line: "total: N passed, N failed".
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';

const report = 'test-results/reports';
rmSync(report, { recursive: true, force: true });
mkdirSync(report, { recursive: true });
const run = (label, cmd, args, env = {}) => {
  process.stdout.write(`\n== ${label}: ${cmd} ${args.join(' ')}\n`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status === 0;
};
const counts = { passed: 0, failed: 0, skipped: 0 };
const steps = [];
const step = (label, ok) => {
  steps.push(`${label}: ${ok ? 'ok' : 'FAILED'}`);
  if (!ok) counts.failed++;
  return ok;
};

step('typecheck', run('typecheck', 'npx', ['tsc', '-p', '.']));
step('lint', run('lint', 'npx', ['eslint', '.', '--max-warnings=0']));
step('format', run('format', 'npx', ['prettier', '--check', '.']));
const unitOk = run('unit', 'npx', [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${report}/unit.json`,
]);
if (existsSync(`${report}/unit.json`)) {
  const u = JSON.parse(readFileSync(`${report}/unit.json`, 'utf8'));
  counts.passed += u.numPassedTests;
  counts.failed += u.numFailedTests;
  counts.skipped += u.numPendingTests + (u.numTodoTests ?? 0);
  steps.push(`unit: ${u.numPassedTests} passed, ${u.numFailedTests} failed`);
  if (!unitOk && u.numFailedTests === 0) step('unit run', false);
} else step('unit', unitOk);
if (step('build', run('build', 'npx', ['vite', 'build']))) {
  const e2eOk = run('e2e', 'npx', ['playwright', 'test', '--reporter=list,json'], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: `${report}/e2e.json`,
  });
  if (existsSync(`${report}/e2e.json`)) {
    const s = JSON.parse(readFileSync(`${report}/e2e.json`, 'utf8')).stats;
    counts.passed += s.expected;
    counts.failed += s.unexpected + s.flaky;
    counts.skipped += s.skipped;
    steps.push(`e2e: ${s.expected} passed, ${s.unexpected + s.flaky} failed`);
    if (!e2eOk && s.unexpected + s.flaky === 0) step('e2e run', false);
  } else step('e2e', e2eOk);
}
process.stdout.write(`\n${steps.join('\n')}\n`);
process.stdout.write(
  `total: ${counts.passed} passed, ${counts.failed} failed${counts.skipped ? `, ${counts.skipped} skipped` : ''}\n`,
);
process.exit(counts.failed === 0 ? 0 : 1);
