import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore, postgresStoreConfig, type Store } from '../../src/store/open-store.js';
import { assertBuilt } from '../cli/cli-process.js';
import { startAnthropicServer, type AnthropicServer } from '../helpers/anthropic-server.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { startRole, type RoleProcess } from '../helpers/serve-role.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * The limits hold across supervisors: one API and three supervisor processes on one PostgreSQL,
 * each with a global limit of 3 (`CAIRN_MAX_CONCURRENCY`) and `concurrency.providers.anthropic: 2`.
 * Ten ready prompt nodes for each supervisor against one stand-in of the provider: never a third
 * call open at once at the stand-in. Four ready bash nodes for each: never a fourth running at
 * once. (Counted by each supervisor alone, either limit would let three times as many through.)
 */

const KEY = '12'.repeat(32);
const GLOBAL_LIMIT = 3;

let cluster: PostgresCluster;
let provider: AnthropicServer;
let api: RoleProcess;
let store: Store;
let apiHome: TempHome;
const homes: TempHome[] = [];

beforeAll(async () => {
  assertBuilt();
  cluster = await startPostgresCluster();
  const url = await cluster.createDatabase('limits');
  // Each call is held open a moment, so calls made at once are seen at once.
  provider = await startAnthropicServer(() => ({
    kind: 'stream',
    blocks: [{ type: 'text', text: 'ok' }],
    heldUntil: new Promise((resolve) => setTimeout(resolve, 150)),
  }));
  apiHome = await makeTempHome();
  homes.push(apiHome);
  mkdirSync(apiHome.paths.workspaces, { recursive: true });
  const env = {
    DATABASE_URL: url, TOKEN_ENCRYPTION_KEY: KEY, ANTHROPIC_BASE_URL: provider.url, ANTHROPIC_API_KEY: 'sk-ant-test',
    CAIRN_MAX_CONCURRENCY: String(GLOBAL_LIMIT),
  };
  api = await startRole(apiHome, 'api', env);
  for (let i = 0; i < 3; i++) {
    const home = await makeTempHome();
    homes.push(home);
    symlinkSync(apiHome.paths.workflows, home.paths.workflows);
    symlinkSync(apiHome.paths.workspaces, home.paths.workspaces);
    writeFileSync(home.paths.config, 'concurrency:\n  providers:\n    anthropic: 2\n');
    await startRole(home, 'supervisor', env);
  }
  store = openStore(postgresStoreConfig(url));
}, 120_000);

afterAll(async () => {
  await store?.close();
  await api?.stop();
  for (const home of homes.reverse()) await home.close();
  await provider?.close();
  await cluster?.stop();
});

/** Starts `count` runs of `workflow` and waits for them to end; returns them and the supervisors that drove them. */
async function runAll(workflow: string, count: number) {
  const runIds: string[] = [];
  for (let i = 0; i < count; i++) runIds.push((await startRun(api.url!, workflow)).runId);
  const owners = new Set<string>();
  await waitFor(async () => {
    const runs = await Promise.all(runIds.map((id) => store.getRun(id)));
    for (const r of runs) if (r?.owner_id) owners.add(r.owner_id);
    return runs.every((r) => r && ['completed', 'failed', 'cancelled'].includes(r.status));
  }, { what: `the ${count} runs of ${workflow} to end`, timeoutMs: 120_000 });
  return { runs: await Promise.all(runIds.map(async (id) => (await store.getRun(id))!)), owners };
}

it('a per-provider limit of 2 with 3 supervisors × 10 ready AI nodes: never a third call at once at the provider', async () => {
  const nodes = Array.from({ length: 10 }, (_, i) => `  - id: ask${i}\n    prompt: "question ${i}"`).join('\n');
  await writeHomeWorkflow(apiHome, 'ten-asks', `name: ten-asks\ndescription: ten prompts at once\nprovider: anthropic\nnodes:\n${nodes}\n`);

  // Three runs of ten ready prompts, one run per supervisor: each takes a run as it comes.
  const { runs, owners } = await runAll('ten-asks', 3);
  expect(runs.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
  // The runs were driven by more than one supervisor, or the test would prove nothing.
  expect(owners.size).toBeGreaterThan(1);
  expect(provider.requests.filter((r) => r.path.includes('/v1/messages'))).toHaveLength(30);
  expect(provider.maxConcurrent()).toBe(2);
}, 180_000); // the runs may take up to 120 s on a loaded machine (the wait in runAll)

it('a global limit of 3 with 3 supervisors × 4 ready bash nodes: never a fourth running at once, each runs once', async () => {
  // Each node appends its start and its end to one file: the file's order is the order they happened in.
  const log = join(apiHome.home, 'nodes.log');
  writeFileSync(log, '');
  const nodes = Array.from({ length: 4 }, (_, i) =>
    `  - id: n${i}\n    bash: 'echo "start $WORKFLOW_ID/n${i}" >> "${log}"; sleep 0.3; echo "end $WORKFLOW_ID/n${i}" >> "${log}"'`,
  ).join('\n');
  await writeHomeWorkflow(apiHome, 'four-sleeps', `name: four-sleeps\ndescription: four bash nodes at once\nnodes:\n${nodes}\n`);

  const { runs, owners } = await runAll('four-sleeps', 3);
  expect(runs.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
  expect(owners.size).toBeGreaterThan(1);

  const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => l.split(' ') as [string, string]);
  let running = 0;
  let most = 0;
  for (const [what] of lines) {
    running += what === 'start' ? 1 : -1;
    most = Math.max(most, running);
  }
  expect(most).toBe(GLOBAL_LIMIT);
  // All twelve ran, each once.
  const starts = lines.filter(([what]) => what === 'start').map(([, key]) => key);
  expect(new Set(starts).size).toBe(12);
  expect(starts).toHaveLength(12);
  expect(lines.filter(([what]) => what === 'end')).toHaveLength(12);
}, 180_000); // the runs may take up to 120 s on a loaded machine (the wait in runAll)
