import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore, postgresStoreConfig } from '../../src/store/open-store.js';
import { assertBuilt } from '../cli/cli-process.js';
import { startAnthropicServer } from '../helpers/anthropic-server.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { startRole } from '../helpers/serve-role.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * A per-provider limit holds across supervisors: three supervisor processes on one PostgreSQL,
 * each with `concurrency.providers.anthropic: 2`, and ten ready prompt nodes for each of them
 * against one stand-in of the provider: never a third call open at once at the stand-in.
 */

const KEY = '12'.repeat(32);

let cluster: PostgresCluster;
beforeAll(async () => {
  assertBuilt();
  cluster = await startPostgresCluster();
});
afterAll(async () => {
  await cluster?.stop();
});

it('a per-provider limit of 2 with 3 supervisors × 10 ready AI nodes: never a third call at once at the provider', async () => {
  const url = await cluster.createDatabase('provider_limit');
  // Each call is held open a moment, so calls made at once are seen at once.
  const provider = await startAnthropicServer(() => ({
    kind: 'stream',
    blocks: [{ type: 'text', text: 'ok' }],
    heldUntil: new Promise((resolve) => setTimeout(resolve, 150)),
  }));
  const homes: TempHome[] = [];
  try {
    const apiHome = await makeTempHome();
    homes.push(apiHome);
    mkdirSync(apiHome.paths.workspaces, { recursive: true });
    const nodes = Array.from({ length: 10 }, (_, i) => `  - id: ask${i}\n    prompt: "question ${i}"`).join('\n');
    await writeHomeWorkflow(apiHome, 'ten-asks', `name: ten-asks\ndescription: ten prompts at once\nprovider: anthropic\nnodes:\n${nodes}\n`);
    const env = {
      DATABASE_URL: url, TOKEN_ENCRYPTION_KEY: KEY, ANTHROPIC_BASE_URL: provider.url, ANTHROPIC_API_KEY: 'sk-ant-test', CAIRN_MAX_CONCURRENCY: '10',
    };
    const api = await startRole(apiHome, 'api', env);
    for (let i = 0; i < 3; i++) {
      const home = await makeTempHome();
      homes.push(home);
      symlinkSync(apiHome.paths.workflows, home.paths.workflows);
      symlinkSync(apiHome.paths.workspaces, home.paths.workspaces);
      writeFileSync(home.paths.config, 'concurrency:\n  providers:\n    anthropic: 2\n');
      await startRole(home, 'supervisor', env);
    }
    const store = openStore(postgresStoreConfig(url));
    apiHome.defer(() => store.close());

    // Three runs of ten ready prompts, one run per supervisor: each takes a run as it comes.
    const runIds: string[] = [];
    for (let i = 0; i < 3; i++) runIds.push((await startRun(api.url!, 'ten-asks')).runId);
    const owners = new Set<string>();
    await waitFor(async () => {
      const runs = await Promise.all(runIds.map((id) => store.getRun(id)));
      for (const r of runs) if (r?.owner_id) owners.add(r.owner_id);
      return runs.every((r) => r && ['completed', 'failed', 'cancelled'].includes(r.status));
    }, { what: 'the three runs to end', timeoutMs: 120_000 });

    for (const id of runIds) expect((await store.getRun(id))?.status).toBe('completed');
    // The runs were driven by more than one supervisor, or the test would prove nothing.
    expect(owners.size).toBeGreaterThan(1);
    expect(provider.requests.filter((r) => r.path.includes('/v1/messages'))).toHaveLength(30);
    expect(provider.maxConcurrent()).toBe(2);

    expect(await api.stop()).toBe(0);
  } finally {
    for (const home of homes.reverse()) await home.close();
    await provider.close();
  }
}, 180_000); // the runs may take up to 120 s on a loaded machine (the wait above)
