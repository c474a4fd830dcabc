// A short soak with faults (bench/soak.ts, `npm run soak` runs the long one): 55 s of starts,
// polls, cancels and input answers from six principals through two gateway processes, while a
// worker, a gateway and the Temporal dev server are each SIGKILLed and restarted at least once.
// Every accepted call is then accounted for from Temporal's own records: one run per idempotency
// key, closed completed or cancelled, under its own principal. Other principals probe each task on
// every path that names, lists, pushes or serves a task (bench/soak/probe.ts): each path is probed,
// none shows anything of another principal (the resources probes against an artifact its owner
// wrote and read back), and no run took an input another principal sent (its owner reads the run
// after each: the key is still asked).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PROBE_PATHS } from '../bench/soak/job-types.ts';
import { renderSoak } from '../bench/soak/report.ts';
import { soakSettings } from '../bench/soak/settings.ts';
import { runSoak } from '../bench/soak.ts';

test('a minute under load and faults at once: nothing lost, nothing run twice, no principal sees another’s task', {
  timeout: 170_000,
}, async () => {
  const settings = {
    ...soakSettings({}),
    seconds: 55,
    rate: 1.5,
    principals: 6,
    workers: 2,
    seed: 20_261,
    // Three faults fit in the minute whatever the draws: every kind comes once in any three.
    faultGapSeconds: [3, 6] as [number, number],
    downSeconds: [1, 3] as [number, number],
    drainSeconds: 45,
  };
  const result = await runSoak(settings, (line) => console.log(`soak: ${line}`));
  console.log(renderSoak(result));

  const kinds = new Set(result.windows.map((window) => window.fault.kind));
  assert.deepEqual([...kinds].sort(), ['gateway', 'temporal', 'worker'], 'a fault of each kind');
  const { audit } = result;
  assert.deepEqual(audit.lost, [], 'no accepted call lost');
  assert.deepEqual(audit.unfinished, [], 'every accepted call ended');
  assert.deepEqual(audit.duplicates, [], 'no call run twice');
  assert.deepEqual(audit.refusedButRan, [], 'no refused call ran');
  const crossPrincipal = result.findings.filter((finding) => finding.kind === 'cross_principal');
  assert.deepEqual(crossPrincipal, [], 'no cross-principal finding');
  assert.deepEqual(result.findings, [], 'no answer about another principal’s task, no wrong answer');
  assert.ok(result.accepted >= 60, `${result.accepted} calls accepted`);
  assert.equal(
    audit.completed + audit.cancelled,
    result.accepted,
    'every accepted call completed or cancelled',
  );
  assert.ok(audit.cancelled > 0 && result.answeredInput > 0, 'cancels and input answers were among them');
  for (const path of PROBE_PATHS)
    assert.ok(
      result.probes[path].unknown > 0,
      `${path}: probed and answered as for an unknown task (${JSON.stringify(result.probes[path])})`,
    );
  assert.ok(result.ok);
});
