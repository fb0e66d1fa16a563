import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSupervisor, type LooseEvent } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';

/**
 * With one worker thread (the default), an exec attempt's end is held by its thread and written
 * with the thread's next write: the next node's start (worker/thread/held-ends.ts). What a user
 * relies on stays: each end is recorded before anything that follows from it, and an end that no
 * start follows is recorded at once.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const label = (e: LooseEvent) => `${e.event_type}${e.step_name ? `:${e.step_name}` : ''}`;

function chainYaml(length: number): string {
  const nodes = Array.from({ length }, (_, i) =>
    i === 0 ? `  - id: n0\n    bash: echo 0` : `  - id: n${i}\n    depends_on: [n${i - 1}]\n    bash: echo "$n${i - 1}.output + 1"`,
  );
  return `name: chain\ndescription: a chain\nnodes:\n${nodes.join('\n')}\n`;
}

it('in a chain, each node ends in the log before the next starts, as a rule in the same commit as that start', async () => {
  const sup = await startSupervisor(home, { threads: 1 });
  const run = await sup.createRun(chainYaml(6));
  await sup.waitForStatus(run.id, ['completed']);
  const events = await sup.events(run.id);
  expect(events.map(label)).toEqual([
    'workflow_started',
    ...Array.from({ length: 6 }, (_, i) => [`node_started:n${i}`, `node_completed:n${i}`]).flat(),
    'workflow_completed',
  ]);
  expect(events.find((e) => label(e) === 'node_completed:n5')!.data.node_output).toBe('0 + 1 + 1 + 1 + 1 + 1');
  let sharedCommits = 0;
  for (let i = 0; i < 5; i++) {
    const end = events.find((e) => label(e) === `node_completed:n${i}`)!;
    const next = events.find((e) => label(e) === `node_started:n${i + 1}`)!;
    expect(next.seq).toBe(end.seq + 1);
    // One transaction, one fsync: the store stamps every row of a commit with the same time.
    if (next.created_at === end.created_at) sharedCommits++;
  }
  // The end rides in the next start's commit when that start is dispatched in the same turn of
  // the event loop; on a loaded machine a write can wait out a busy database first, and the pool
  // then writes the end on its own (never later than the start). So: at least one link shares
  // its commit, which only the held end can do.
  expect(sharedCommits).toBeGreaterThan(0);
});

it('a node that ends while a sibling still runs, with nothing to start after it, is recorded at once', async () => {
  const sup = await startSupervisor(home, { threads: 1 });
  const run = await sup.createRun(`name: siblings
description: a quick node beside a long one
nodes:
  - id: quick
    bash: echo done
  - id: long
    bash: sleep 60
`);
  const events = await waitFor(async () => {
    const seen = await sup.events(run.id);
    return seen.some((e) => label(e) === 'node_completed:quick') ? seen : undefined;
  }, { what: 'the quick node to be recorded completed' });
  expect(events.map(label)).toContain('node_started:long');
  expect(events.map(label)).not.toContain('node_completed:long');
  await sup.store.enqueueJob('cancel_run', run.id);
  await sup.waitForStatus(run.id, ['cancelled']);
});

it('a failure that is retried after a delay is recorded before its retry starts', async () => {
  const sup = await startSupervisor(home, { threads: 1 });
  const run = await sup.createRun(`name: retried
description: fails once, then succeeds
nodes:
  - id: flaky
    bash: 'if [ -e "$ARTIFACTS_DIR/once" ]; then echo ok; else touch "$ARTIFACTS_DIR/once"; exit 3; fi'
    retry:
      max_attempts: 2
      delay_ms: 1000
      on_error: all
`);
  await sup.waitForStatus(run.id, ['completed']);
  const events = await sup.events(run.id);
  expect(events.map(label)).toEqual([
    'workflow_started', 'node_started:flaky', 'node_failed:flaky', 'node_started:flaky', 'node_completed:flaky', 'workflow_completed',
  ]);
  // The failure was recorded on its own while the retry waited, not with the retry's start.
  expect(events[2]!.created_at < events[3]!.created_at).toBe(true);
});
