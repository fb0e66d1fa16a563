import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Store } from '../../../src/store/store.js';
import { createRunRow } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';
import { capturingLogger, startTimedSupervisor } from './timed-supervisor.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

/**
 * The store of a supervisor whose renewals stop getting through (its heartbeat and lease
 * renewals wait, as on a connection a network split dropped) while `cut`; the held calls are
 * answered once it is joined again. Every other call is the real store's.
 */
function renewalsCut(real: Store): { store: Store; cut(): void; join(): void } {
  let cut = false;
  const held: (() => void)[] = [];
  const store = new Proxy(real, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const call = (...args: unknown[]) => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      if (prop !== 'writeHeartbeat' && prop !== 'renewRunLeases') return call;
      return (...args: unknown[]) => (cut ? new Promise((resolve, reject) => held.push(() => void call(...args).then(resolve, reject))) : call(...args));
    },
  });
  return {
    store,
    cut: () => void (cut = true),
    join() {
      cut = false;
      for (const deliver of held.splice(0)) deliver();
    },
  };
}

/** `start|term|end <pid>`: the first attempt sleeps 30 s, the next ones end at once. */
const script = (log: string) =>
  `trap 'echo "term $$" >> "${log}"; exit 143' TERM; echo "start $$" >> "${log}"; ` +
  `if [ -e "${log}.first" ]; then s=0; else touch "${log}.first"; s=30; fi; sleep "$s" & wait; echo "end $$" >> "${log}"`;

it('a supervisor whose renewals stop getting through past its renew deadline ends its node and lets the run go; once they get through again, it takes the run back and runs the node again', async () => {
  const log = join(home.home, 'attempts.log');
  writeFileSync(log, '');
  const lines = () => readFileSync(log, 'utf8').split('\n').filter(Boolean);
  const renewals = renewalsCut(home.openStore());
  const captured = capturingLogger();
  await startTimedSupervisor(home, {
    id: 'sup-cut', store: renewals.store, log: captured.log, timing: { runLeaseMs: 5_000, heartbeatMs: 200, renewDeadlineMs: 2_000 },
  });
  const seed = home.openStore();
  const run = await createRunRow(seed, `name: long\ndescription: one long node\nnodes:\n  - id: a\n    bash: ${JSON.stringify(script(log))}\n`);
  await waitFor(() => lines().length === 1, { what: 'the node to start' });

  renewals.cut();
  // Past the deadline: the node's process gets SIGTERM, and the run is let go (its release commits here).
  await waitFor(() => lines().some((l) => l.startsWith('term')), { what: 'the node to be ended' });
  await waitFor(async () => (await seed.getRun(run.id))?.owner_id === null, { what: 'the run to be let go' });
  expect(captured.lines.filter((l) => l.msg === 'supervisor.fenced')).toHaveLength(1);
  // Fenced, it takes nothing over: the run waits, still running, with nobody driving it.
  expect((await seed.getRun(run.id))!.status).toBe('running');
  expect(lines().filter((l) => l.startsWith('start'))).toHaveLength(1);

  renewals.join();
  await waitFor(() => captured.lines.some((l) => l.msg === 'supervisor.fence_lifted'), { what: 'the fence to be lifted' });
  const ended = await waitFor(async () => {
    const now = await seed.getRun(run.id);
    return now && now.status !== 'running' ? now : undefined;
  }, { what: 'the run to end', timeoutMs: 20_000 });
  expect(ended.status).toBe('completed');
  expect(lines().map((l) => l.split(' ')[0])).toEqual(['start', 'term', 'start', 'end']);
  // The ended attempt is recorded as no success: the node succeeded once, on its second attempt.
  const events = await seed.listRunEvents(run.id);
  const ofNode = events.filter((e) => e.step_name === 'a' && /^node_(started|completed|failed)$/.test(e.event_type)).map((e) => e.event_type);
  expect(ofNode).toEqual(['node_started', 'node_failed', 'node_started', 'node_completed']);
  const failed = events.find((e) => e.event_type === 'node_failed')!.data;
  expect([failed.interrupted, failed.failure_kind]).toEqual([true, 'transient']);
  expect(failed.error).toMatch(/^Interrupted: the supervisor could not renew its lease on the run in time/);
  expect(captured.lines.filter((l) => l.msg === 'run.takeover_started').map((l) => l.runId)).toEqual([run.id]);
});
