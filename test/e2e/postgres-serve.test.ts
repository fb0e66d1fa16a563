import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore, postgresStoreConfig } from '../../src/store/open-store.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { startServer } from '../helpers/server.js';
import { openSse } from '../helpers/sse.js';
import { makeTempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgresCluster();
});
afterAll(async () => {
  await cluster?.stop();
});

const workflow = `name: pg-flow
description: a fan-out, a gate answered over HTTP, then a last step
nodes:
  - id: list
    bash: 'echo "[1,2,3]"'
  - id: each
    depends_on: [list]
    workflow: item
    fan_out: { items: "$list.output", max_parallel: 2, join: all_success, mode: child_runs }
  - id: review
    depends_on: [each]
    approval:
      message: "Ship it?"
  - id: ship
    depends_on: [review]
    bash: 'printf shipped'
`;

/** docs/postgres.md's example: `DATABASE_URL=postgres://user:password@host:port/database cairn serve`. */
function documentedExample(): URL {
  const doc = readFileSync(fileURLToPath(new URL('../../docs/postgres.md', import.meta.url)), 'utf8');
  const line = doc.match(/```\n(DATABASE_URL=\S+ cairn serve)\n```/)?.[1];
  if (!line) throw new Error('docs/postgres.md lost its example `DATABASE_URL=postgres://… cairn serve`');
  return new URL(line.slice('DATABASE_URL='.length, -' cairn serve'.length));
}

it('serves on PostgreSQL when DATABASE_URL names it: a run with a fan-out and a gate completes, its events stream over SSE, and the password is never printed', async () => {
  const home = await makeTempHome();
  try {
    // The documented example, pointed at this test's cluster. Trust auth ignores the password;
    // it is there to check that nothing prints it.
    const example = documentedExample();
    const database = example.pathname.slice(1);
    await cluster.createDatabase(database);
    const url = `postgres://${example.username}:pw-never-printed@127.0.0.1:${cluster.port}/${database}`;
    await writeHomeWorkflow(home, 'item', 'name: item\ndescription: one item\nnodes:\n  - id: echo\n    bash: \'printf "item-%s" "$ARGUMENTS"\'\n');
    await writeHomeWorkflow(home, 'pg-flow', workflow);
    const server = await startServer(home, { DATABASE_URL: url });
    const dashboard = await openSse(`${server.url}/api/stream/__dashboard__`);
    home.defer(() => dashboard.close());

    const { runId, conversationId } = await startRun(server.url, 'pg-flow');
    const stream = await openSse(`${server.url}/api/stream/${conversationId}`, { lastEventId: 0 });
    home.defer(() => stream.close());
    const statusOf = async () => (await getRun(server.url, runId)).run.status as string;
    await waitFor(async () => ['paused', 'failed', 'completed'].includes(await statusOf()), { what: 'the run to reach its gate' });
    expect(await statusOf()).toBe('paused');

    const approve = await fetch(`${server.url}/api/workflows/runs/${runId}/approve`, { method: 'POST' });
    expect(approve.status).toBe(200);
    await waitFor(async () => ['failed', 'completed', 'cancelled'].includes(await statusOf()), { what: 'the run to end' });
    const done = await getRun(server.url, runId);
    expect(done.run.status).toBe('completed');
    expect(done.events.find((e) => e.event_type === 'node_completed' && e.step_name === 'ship')?.data.node_output).toBe('shipped');

    // The run's stream and the dashboard's stream both carried its end, in seq order.
    const ends = (frames: { data: Record<string, any> }[]) => frames.some((f) => JSON.stringify(f.data).includes('workflow_completed'));
    await stream.until(ends);
    await dashboard.until(ends);
    const ids = stream.frames.map((f) => f.id).filter((id): id is number => id !== undefined);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));

    // Everything lives in PostgreSQL: the runs (parent and its three children) are there, no SQLite file was made.
    const store = openStore(postgresStoreConfig(url));
    home.defer(() => store.close());
    expect((await store.getRun(runId))?.status).toBe('completed');
    expect(await store.listChildRuns(runId, 'each')).toHaveLength(3);
    expect(existsSync(home.paths.database)).toBe(false);

    expect(await server.stop()).toBe(0);
    expect(server.output()).not.toContain('pw-never-printed');
  } finally {
    await home.close();
  }
});
