import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, postgresStoreConfig } from '../../src/store/open-store.js';
import { assertBuilt, runCli, userCliEnv } from '../cli/cli-process.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { startRole } from '../helpers/serve-role.js';
import { makeTempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { newRun } from '../store/fixtures.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/** `cairn serve --role api|supervisor`: the two halves of the server as separate launchers, on one PostgreSQL database. */

const KEY = 'ab'.repeat(32);

describe('--role is refused when it cannot work', () => {
  beforeAll(assertBuilt);
  const serve = async (argv: string[], env: NodeJS.ProcessEnv = {}) => {
    const home = await makeTempHome();
    try {
      return await runCli(['serve', ...argv], { env: userCliEnv(home.home, { CAIRN_LOG_LEVEL: 'warn', ...env }), cwd: home.home });
    } finally {
      await home.close();
    }
  };

  it.each(['supervisor', 'api'])('--role %s without DATABASE_URL: a usage error saying why (SQLite is one machine\'s file)', async (role) => {
    const res = await serve(['--role', role], { DATABASE_URL: '' });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`--role ${role} needs DATABASE_URL`);
    expect(res.stderr).toContain('belongs to one machine');
    expect(res.stderr).toContain('cairn serve --help');
  });

  it('an unknown role names the ones there are', async () => {
    const res = await serve(['--role', 'worker']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("--role must be one of all, api, supervisor, got 'worker'");
  });

  it('--port with --role supervisor is refused: a supervisor listens on no port', async () => {
    const res = await serve(['--role', 'supervisor', '--port', '4000'], { DATABASE_URL: 'postgres://cairn@127.0.0.1:1/none' });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('a supervisor listens on no port');
  });

  it('a run lease too short for a supervisor to fence itself in time is refused, naming the least lease (before the database is reached)', async () => {
    const res = await serve(['--role', 'supervisor'], { DATABASE_URL: 'postgres://cairn@127.0.0.1:1/none', CAIRN_RUN_LEASE_MS: '5999' });
    expect(res.code).toBe(1);
    expect(res.stdout + res.stderr).toContain('CAIRN_RUN_LEASE_MS=5999 is too short for a supervisor on a shared database');
    expect(res.stdout + res.stderr).toContain('Set it to at least 6000.');
  });
});

describe('an API and a supervisor started apart, on one PostgreSQL', () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    assertBuilt();
    cluster = await startPostgresCluster();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  /** docs/postgres.md's example of the two roles, one line each: `DATABASE_URL=postgres://… cairn serve --role <role>`. */
  function documentedRoles(): { example: URL; roles: string[] } {
    const doc = readFileSync(fileURLToPath(new URL('../../docs/postgres.md', import.meta.url)), 'utf8');
    const block = doc.split('## Several supervisors')[1]?.match(/```\n([\s\S]*?)```/)?.[1] ?? '';
    const lines = [...block.matchAll(/^DATABASE_URL=(\S+) cairn serve --role (\S+)$/gm)];
    if (lines.length === 0) throw new Error('docs/postgres.md lost its example of `cairn serve --role`');
    return { example: new URL(lines[0]![1]!), roles: lines.map((m) => m[2]!) };
  }

  it("docs/postgres.md's example: the API alone runs nothing; a supervisor with its own CAIRN_HOME, started later, runs the queued run", async () => {
    const { example, roles } = documentedRoles();
    expect(roles).toEqual(['api', 'supervisor']);
    // The documented URL, pointed at this test's cluster (trust auth ignores the password).
    await cluster.createDatabase(example.pathname.slice(1));
    const url = `postgres://${example.username}:secret@127.0.0.1:${cluster.port}/${example.pathname.slice(1)}`;
    const apiHome = await makeTempHome();
    const supHome = await makeTempHome();
    try {
      const env = { DATABASE_URL: url, TOKEN_ENCRYPTION_KEY: KEY };
      await writeHomeWorkflow(apiHome, 'two-steps', "name: two-steps\ndescription: d\nnodes:\n  - id: a\n    bash: 'printf one'\n  - id: b\n    depends_on: [a]\n    bash: 'printf \"$a.output-two\"'\n");
      const api = await startRole(apiHome, 'api', env);
      expect(api.output()).toContain('API only');
      expect(existsSync(apiHome.paths.serverFile)).toBe(true);
      expect(existsSync(apiHome.paths.supervisorPid)).toBe(false);

      const { runId } = await startRun(api.url!, 'two-steps');
      expect((await getRun(api.url!, runId)).run.status).toBe('pending');

      const supervisor = await startRole(supHome, 'supervisor', env);
      // It listens nowhere: no server.json, only its pid file.
      expect(existsSync(supHome.paths.serverFile)).toBe(false);
      const supervisorPid = await supervisor.supervisorPid();
      await waitFor(async () => (await getRun(api.url!, runId)).run.status === 'completed', { what: 'the run to complete' });
      const done = await getRun(api.url!, runId);
      expect(done.events.find((e) => e.event_type === 'node_completed' && e.step_name === 'b')?.data.node_output).toBe('one-two');
      // The API reports the other host's supervisor from its heartbeat.
      const health = (await (await fetch(`${api.url}/api/health`)).json()) as Record<string, any>;
      expect(health.concurrency.supervisor).toMatchObject({ up: true, pid: supervisorPid });

      expect(await supervisor.stop()).toBe(0);
      expect(existsSync(supHome.paths.supervisorPid)).toBe(false);
      expect(await api.stop()).toBe(0);
    } finally {
      await supHome.close();
      await apiHome.close();
    }
  });

  it('a supervisor that cannot see the checkout an open run works in refuses to start, naming it and what to share', async () => {
    const url = await cluster.createDatabase('roles_unseen');
    const home = await makeTempHome();
    try {
      const store = openStore(postgresStoreConfig(url));
      home.defer(() => store.close());
      const missing = join(home.home, 'mounted-elsewhere', 'repo');
      const scan = { status: 'clean' as const, files: [], keys: [], scanned_at: new Date().toISOString() };
      await store.registerCodebase({
        id: 'acme/repo', name: 'repo', repository_url: null, default_cwd: missing, default_branch: 'main', kind: 'repo', managed: false, env_scan: scan,
      });
      await store.createRun({ ...newRun(), codebaseId: 'acme/repo' });

      const res = await runCli(['serve', '--role', 'supervisor'], {
        env: userCliEnv(home.home, { CAIRN_LOG_LEVEL: 'warn', DATABASE_URL: url, TOKEN_ENCRYPTION_KEY: KEY }), cwd: home.home,
      });
      expect(res.code).toBe(1);
      const said = res.stdout + res.stderr;
      expect(said).toContain(`cannot see the checkout of acme/repo at ${missing} (1 open run)`);
      expect(said).toContain('at the same paths');
      expect(existsSync(home.paths.supervisorPid)).toBe(false);
    } finally {
      await home.close();
    }
  });
});
