import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { waitFor } from '../../helpers/wait-for.js';
import { openRoom, typesAt, type Room } from '../harness/room.js';

/**
 * Child runs (a `workflow:` node) of a workflow that declares `concurrency:`, started by two
 * parents at once, through the real supervisor: the child's limit holds across the parents. With
 * `queue` the second child waits pending (its parent's node waits with it) and starts once the
 * first has ended; with `refuse` the second child is not created and its parent's node fails with
 * the refusal.
 */

let room: Room;
beforeEach(async () => {
  room = await openRoom();
});
afterEach(async () => {
  await room.home.close();
});

/** The child workflow: one node that logs its start and end (with its run id) and waits for the `go` mark. */
async function deployWorkflow(onOverlap: 'queue' | 'refuse'): Promise<{ log: string; go: string }> {
  const marks = join(room.home.home, 'marks');
  const log = join(marks, 'deploy.log');
  const go = join(marks, 'go');
  await room.workflow('deploy', `name: deploy
description: one deployment at a time
concurrency: { limit: 1, on_overlap: ${onOverlap} }
nodes:
  - id: ship
    bash: "echo \\"start $WORKFLOW_ID\\" >> '${log}'; while [ ! -e '${go}' ]; do sleep 0.02; done; echo \\"end $WORKFLOW_ID\\" >> '${log}'"
`);
  return { log, go };
}

const parentYaml = (name: string) => `name: ${name}
description: a parent that deploys through a child run
nodes:
  - id: deploy
    workflow: deploy
  - id: after
    depends_on: [deploy]
    bash: echo deployed
`;

const logLines = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);

it('queue: the second parent’s child waits for the first’s to end, and both parents complete; the children never overlap', async () => {
  const { log, go } = await deployWorkflow('queue');
  const first = await room.start(parentYaml('parent-a'));
  const second = await room.start(parentYaml('parent-b'));
  // Both children exist: one holds the place, running; the other waits pending, saying for whom.
  const children = await waitFor(async () => {
    const found = [...(await room.sup.store.listChildRuns(first.id, 'deploy')), ...(await room.sup.store.listChildRuns(second.id, 'deploy'))];
    return found.length === 2 && logLines(log).length === 1 ? found : undefined;
  }, { what: 'both child runs, one of them started' });
  const running = children.find((c) => logLines(log)[0] === `start ${c.id}`)!;
  const waiting = children.find((c) => c.id !== running.id)!;
  const waitingNow = (await room.sup.store.getRun(waiting.id))!;
  expect(waitingNow.status).toBe('pending');
  expect(waitingNow.metadata.concurrency).toEqual({ key: 'deploy', limit: 1, on_overlap: 'queue', waiting_for: [running.id], position: 1 });
  const waitingParent = waiting.parent_run_id === first.id ? first : second;
  expect(typesAt(await room.events(waitingParent.id), 'deploy')).toEqual(['node_started']);

  await writeFile(go, '');
  for (const parent of [first, second]) expect((await room.settle(parent.id)).status).toBe('completed');
  expect(logLines(log)).toEqual([`start ${running.id}`, `end ${running.id}`, `start ${waiting.id}`, `end ${waiting.id}`]);
});

it('refuse: the second parent’s child is refused, its node fails with the refusal and that parent fails; the first completes', async () => {
  const { log, go } = await deployWorkflow('refuse');
  const first = await room.start(parentYaml('parent-a'));
  await waitFor(() => logLines(log).length === 1, { what: 'the first child to start' });
  const [holder] = await room.sup.store.listChildRuns(first.id, 'deploy');
  const second = await room.start(parentYaml('parent-b'));

  const failed = await room.settle(second.id);
  expect(failed.status).toBe('failed');
  expect(await room.sup.store.listChildRuns(second.id, 'deploy')).toEqual([]);
  const events = await room.events(second.id);
  // Refused before any child exists: the node fails as a configuration failure (not retried).
  expect(typesAt(events, 'deploy')).toEqual(['node_failed']);
  expect(typesAt(events, 'after')).not.toContain('node_started');
  const error = events.find((e) => e.event_type === 'node_failed' && e.step_name === 'deploy')!.data.error as string;
  expect(events.find((e) => e.event_type === 'node_failed')!.data.failure_kind).toBe('config');
  expect(error).toContain(`Node 'deploy': cannot start child workflow 'deploy': Workflow 'deploy' allows 1 run at a time for concurrency key "deploy" (on_overlap: refuse), and ${holder!.id} holds its one place`);

  await writeFile(go, '');
  expect((await room.settle(first.id)).status).toBe('completed');
  expect(logLines(log)).toEqual([`start ${holder!.id}`, `end ${holder!.id}`]);
});
