import { createHmac } from 'node:crypto';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isLiveSupervisor } from '../../src/migrate/live-supervisor.js';
import { copySqliteToPostgres, type CopyProgress } from '../../src/store/copy/copy-sqlite-to-postgres.js';
import { openStore, postgresStoreConfig } from '../../src/store/open-store.js';
import { runCliInProcess } from '../cli/cli-harness.js';
import { runCli, userCliEnv } from '../cli/cli-process.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { startRole } from '../helpers/serve-role.js';
import { startServer } from '../helpers/server.js';
import { openSse, type SseClient, type SseFrame } from '../helpers/sse.js';
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

const steps = `name: steps
description: three steps in a row
nodes:
  - id: one
    bash: 'printf one'
  - id: two
    depends_on: [one]
    bash: 'printf two'
  - id: three
    depends_on: [two]
    bash: 'printf three'
`;
const gated = `name: gated
description: a step, a gate, a step
nodes:
  - id: build
    bash: 'printf built'
  - id: review
    depends_on: [build]
    approval:
      message: "Ship it?"
  - id: ship
    depends_on: [review]
    bash: 'printf shipped'
`;

/** docs/postgres.md's `cairn migrate` example: its arguments, and the table names of its sample output in order. */
function documentedMigrate(): { args: string[]; header: string; tables: string[] } {
  const doc = readFileSync(fileURLToPath(new URL('../../docs/postgres.md', import.meta.url)), 'utf8');
  const section = doc.split('## Moving an install to PostgreSQL')[1]?.split('\n## ')[0] ?? '';
  const line = section.match(/```\nDATABASE_URL=\S+ cairn (migrate [^\n]*)\n```/)?.[1];
  const sample = section.match(/```\n(table [^`]*)```/)?.[1];
  if (!line || !sample) throw new Error('docs/postgres.md lost its `cairn migrate` example or its sample output');
  // docs/cli.md's section shows the same example.
  const cli = readFileSync(fileURLToPath(new URL('../../docs/cli.md', import.meta.url)), 'utf8').split('\n## cairn migrate\n')[1]?.split('\n## ')[0];
  expect(cli?.match(/```sh\nDATABASE_URL=\S+ cairn (migrate [^\n]*)\n```/)?.[1]).toBe(line);
  const [header, ...rows] = sample.split('\n\n')[0]!.split('\n');
  return { args: line.split(' '), header: header!.trim(), tables: rows.map((r) => r.split(/\s+/)[0]!) };
}

const json = { 'content-type': 'application/json' };
const ann = { 'x-service-user': 'ann' };

it('cairn migrate moves an install from SQLite to PostgreSQL: runs, events, codebases, conversations, schedules and sealed credentials are served the same, the paused run completes, new ids do not collide; a database in use or a target holding data is refused', async () => {
  const home = await makeTempHome();
  try {
    await writeHomeWorkflow(home, 'steps', steps);
    await writeHomeWorkflow(home, 'gated', gated);
    const database = 'migrated';
    await cluster.createDatabase(database);
    const url = `postgres://cairn:pw-never-printed@127.0.0.1:${cluster.port}/${database}`;
    const documented = documentedMigrate();
    const migrate = (extra: string[] = []) =>
      runCli([...documented.args, ...extra], { env: userCliEnv(home.home, { DATABASE_URL: url }), cwd: home.home });
    const read = async (server: { url: string }, path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${server.url}${path}`, { headers });
      expect(res.status, path).toBe(200);
      return (await res.json()) as any;
    };
    const waitStatus = async (server: { url: string }, runId: string, statuses: string[]) => {
      await waitFor(async () => statuses.includes((await getRun(server.url, runId)).run.status as string), { what: `run ${runId} to be ${statuses.join('|')}` });
      return (await getRun(server.url, runId)).run.status as string;
    };

    // Phase 1: an install on SQLite, filled through the real server.
    const sqlite = await startServer(home);
    const done = await startRun(sqlite.url, 'steps');
    const paused = await startRun(sqlite.url, 'gated');
    expect(await waitStatus(sqlite, done.runId, ['completed', 'failed'])).toBe('completed');
    expect(await waitStatus(sqlite, paused.runId, ['paused', 'failed', 'completed'])).toBe('paused');
    const project = join(home.home, 'project');
    await mkdir(project);
    const added = await fetch(`${sqlite.url}/api/codebases`, { method: 'POST', headers: json, body: JSON.stringify({ path: project }) });
    expect(added.status).toBeLessThan(300);
    const conversation = (await (await fetch(`${sqlite.url}/api/conversations`, { method: 'POST', headers: json, body: '{}' })).json()) as { conversationId: string };
    const sent = await fetch(`${sqlite.url}/api/conversations/${conversation.conversationId}/message`, { method: 'POST', headers: json, body: JSON.stringify({ message: '/help' }) });
    expect(sent.status).toBe(200);
    await waitFor(async () => (await read(sqlite, `/api/conversations/${conversation.conversationId}/messages`)).length === 2, { what: 'the /help answer' });
    const secret = 'sk-ant-migrated-secret-0123456789';
    const stored = await fetch(`${sqlite.url}/api/auth/providers/anthropic`, { method: 'PUT', headers: { ...json, ...ann }, body: JSON.stringify({ apiKey: secret, label: 'work' }) });
    expect(stored.status).toBe(200);
    const scheduled = await fetch(`${sqlite.url}/api/schedules`, {
      method: 'POST', headers: json, body: JSON.stringify({ name: 'nightly', workflow: 'steps', cron: '30 2 * * *', timezone: 'UTC', paused: true }),
    });
    expect(scheduled.status).toBe(201);
    const hookSecret = 'a-hook-secret-of-32-characters-0';
    const hooked = await fetch(`${sqlite.url}/api/hooks`, {
      method: 'POST', headers: json, body: JSON.stringify({ name: 'ci', workflow: 'steps', signature: 'github', secret: hookSecret, inputs: {} }),
    });
    expect(hooked.status).toBe(201);

    // Refused while the server uses the file: found by its launcher (the home's run/server.json), and
    // with the file named, by its supervisor's heartbeat in it.
    const inUse = await migrate();
    expect(inUse.code).toBe(1);
    expect(inUse.stderr).toMatch(/a Cairn server \(launcher pid \d+, .*\) is running for .* stop that server .* Nothing was copied\./);
    const beating = await migrate(['--sqlite', home.paths.database]);
    expect(beating.code).toBe(1);
    expect(beating.stderr).toMatch(/a Cairn supervisor \(pid \d+ on .*\) is using .*cairn\.sqlite: stop that server .* Nothing was copied\./);

    const paths = ['/api/workflows/runs', `/api/workflows/runs/${done.runId}`, `/api/workflows/runs/${paused.runId}`, '/api/codebases',
      '/api/conversations', `/api/conversations/${conversation.conversationId}/messages`, '/api/schedules', '/api/hooks'];
    const before = new Map<string, unknown>();
    for (const path of paths) before.set(path, await read(sqlite, path));
    const credentialsBefore = (await read(sqlite, '/api/auth/providers', ann)).connections;
    expect(credentialsBefore).toEqual([expect.objectContaining({ provider: 'anthropic', label: 'work' })]);
    expect(await sqlite.stop()).toBe(0);

    // The copy: every table counted in both, all ok, the password never printed.
    const copied = await migrate();
    expect(copied.stderr).not.toContain('pw-never-printed');
    expect(copied.stdout).not.toContain('pw-never-printed');
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.stderr).toMatch(/^events: \d+ rows copied$/m);
    const table = copied.stdout.split('\n');
    expect(table[0]!.trim().split(/\s+/)).toEqual(documented.header.split(/\s+/));
    const rows = table.slice(1, 1 + documented.tables.length).map((r) => r.trim().split(/\s+/));
    expect(rows.map((r) => r[0])).toEqual(documented.tables);
    for (const [name, inSqlite, inPostgres, verdict] of rows) expect([name, inPostgres, verdict]).toEqual([name, inSqlite, 'ok']);
    expect(Number(rows.find((r) => r[0] === 'events')![1])).toBeGreaterThan(10);
    expect(copied.stdout).toMatch(/\nCopied \d+ rows; every count matches\. Start the server on PostgreSQL with the same CAIRN_HOME and DATABASE_URL=postgres:\/\/cairn:\*\*\*@127\.0\.0\.1:\d+\/migrated \(the SQLite file is left as it was\)\.\n$/);

    // The credential crossed sealed, as it was: the same sealed text, never the key.
    const fileDb = new Database(home.paths.database, { readonly: true });
    const sealedInFile = fileDb.prepare('SELECT sealed_secret FROM provider_credentials').all();
    fileDb.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const sealedInPg = (await client.query('SELECT sealed_secret FROM provider_credentials')).rows;
    await client.end();
    expect(sealedInPg).toEqual(sealedInFile);
    expect(JSON.stringify(sealedInPg)).not.toContain(secret);
    expect(sealedInPg[0].sealed_secret).toMatch(/^cairn:/);

    // A second copy into the now filled database is refused, naming what it holds and the way out.
    const again = await migrate();
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already holds Cairn data \(codebases: 1, .*workflow_runs: 2.*\): .*--replace .* Nothing was copied\./);
    expect(again.stderr).not.toContain('pw-never-printed');

    // Phase 2: the same home on PostgreSQL serves the same install.
    const postgres = await startServer(home, { DATABASE_URL: url });
    for (const path of paths) expect(await read(postgres, path), path).toEqual(before.get(path));
    expect((await read(postgres, '/api/auth/providers', ann)).connections).toEqual(credentialsBefore);
    // The hook's sealed secret crossed as it was: a delivery signed with it is admitted there.
    const payload = '{"ref":"main"}';
    const delivered = await fetch(`${postgres.url}/api/hooks/ci`, {
      method: 'POST',
      headers: { ...json, 'x-github-delivery': 'after-the-move', 'x-hub-signature-256': `sha256=${createHmac('sha256', hookSecret).update(payload).digest('hex')}` },
      body: payload,
    });
    expect(delivered.status, await delivered.clone().text()).toBe(202);

    const approve = await fetch(`${postgres.url}/api/workflows/runs/${paused.runId}/approve`, { method: 'POST' });
    expect(approve.status).toBe(200);
    expect(await waitStatus(postgres, paused.runId, ['completed', 'failed', 'cancelled'])).toBe('completed');
    const resumed = await getRun(postgres.url, paused.runId);
    expect(resumed.events.find((e) => e.event_type === 'node_completed' && e.step_name === 'ship')?.data.node_output).toBe('shipped');

    const copiedSeqs = (before.get(`/api/workflows/runs/${paused.runId}`) as { events: { seq: number }[] }).events.map((e) => e.seq);
    expect(copiedSeqs.every((seq) => Number.isInteger(seq))).toBe(true);
    const lastCopied = Math.max(...copiedSeqs, ...(before.get(`/api/workflows/runs/${done.runId}`) as { events: { seq: number }[] }).events.map((e) => e.seq));
    const fresh = await startRun(postgres.url, 'steps');
    expect([done.runId, paused.runId]).not.toContain(fresh.runId);
    expect(await waitStatus(postgres, fresh.runId, ['completed', 'failed'])).toBe('completed');
    const freshSeqs = (await getRun(postgres.url, fresh.runId)).events.map((e) => e.seq as number);
    expect(freshSeqs.length).toBeGreaterThan(0);
    expect(Math.min(...freshSeqs)).toBeGreaterThan(lastCopied);
    // The resumed run's events went on after its copied ones, in order.
    const resumedSeqs = resumed.events.map((e) => e.seq as number);
    expect(resumedSeqs.slice(0, copiedSeqs.length)).toEqual(copiedSeqs);
    expect(resumedSeqs).toEqual([...resumedSeqs].sort((a, b) => a - b));
    expect(await postgres.stop()).toBe(0);
    expect(postgres.output()).not.toContain('pw-never-printed');

    // --replace (the same copy, in-process): the PostgreSQL install is put back to the SQLite
    // file's, the fresh run gone, with progress reported along a big table (here every 5 rows).
    const progress: CopyProgress[] = [];
    const copyAgain = () => copySqliteToPostgres({ sqlitePath: home.paths.database, url, replace: true, isLive: (b) => isLiveSupervisor(b), onProgress: (p) => progress.push(p), progressEvery: 5 });
    const replaced = await copyAgain();
    expect(replaced.committed).toBe(true);
    expect(replaced.counts.find((c) => c.table === 'workflow_runs')).toEqual({ table: 'workflow_runs', source: 2, target: 2 });
    const events = Number(rows.find((r) => r[0] === 'events')![1]);
    expect(progress.filter((p) => p.table === 'events')).toEqual([
      ...Array.from({ length: Math.ceil(events / 5) - 1 }, (_, i) => ({ table: 'events', copied: (i + 1) * 5, total: events })),
      { table: 'events', copied: events, total: events },
    ]);
    // A row PostgreSQL refuses (SQLite keeps text in an integer column) fails the copy as a whole,
    // --replace included: what the database held before is still there, untouched.
    const writable = new Database(home.paths.database);
    writable.prepare(`UPDATE schedules SET catch_up_ms = 'soon'`).run();
    writable.close();
    const failed = await migrate(['--replace']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/cairn: the copy failed and was rolled back \(postgres:\/\/cairn:\*\*\*@.* holds none of it\): PostgreSQL refused a row of schedules \(after 0 copied\): .*bigint/);
    expect(failed.stderr).not.toContain('pw-never-printed');
    const check = new pg.Client({ connectionString: url });
    await check.connect();
    const after = (await check.query(`SELECT (SELECT COUNT(*) FROM workflow_runs)::int AS runs, (SELECT COUNT(*) FROM events)::int AS events, (SELECT catch_up_ms FROM schedules)::text AS catch_up`)).rows[0];
    await check.end();
    expect(after).toEqual({ runs: 2, events, catch_up: expect.stringMatching(/^\d+$/) });
  } finally {
    await home.close();
  }
});

it('cairn migrate refuses a bad command line with exit 2, naming what is missing and never quoting a URL', async () => {
  const home = await makeTempHome();
  try {
    const env = { CAIRN_HOME: home.home };
    const url = cluster.urlOf('postgres');
    const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
      [['--from', 'mysql', '--to', 'postgres'], { ...env, DATABASE_URL: url }, /--from must be sqlite, got 'mysql'\./],
      [['--from', 'sqlite'], { ...env, DATABASE_URL: url }, /--to must be postgres\./],
      [['--from', 'sqlite', '--to', 'postgres'], env, /Name the PostgreSQL database to copy into: --database-url <url> or DATABASE_URL/],
      [['--from', 'sqlite', '--to', 'postgres', '--database-url', 'mysql://u:secret-pw@db/x'], env, /--database-url must be a PostgreSQL URL such as postgres:\/\//],
      [['--from', 'sqlite', '--to', 'postgres'], { ...env, DATABASE_URL: url }, /there is no SQLite database at .*cairn\.sqlite: name the install's database with --sqlite <file>, or set CAIRN_HOME/],
    ];
    for (const [args, caseEnv, message] of cases) {
      const result = await runCliInProcess(['migrate', ...args], { env: caseEnv, cwd: home.home });
      expect([result.code, result.stderr], args.join(' ')).toEqual([2, expect.stringMatching(message)]);
      expect(result.stderr).not.toContain('secret-pw');
    }
  } finally {
    await home.close();
  }
});

/** docs/postgres.md's example of the answer to a request made while the database is down. */
function documentedOutageAnswer(): { error: string; code: string } {
  const doc = readFileSync(fileURLToPath(new URL('../../docs/postgres.md', import.meta.url)), 'utf8');
  const section = doc.split('## When the database restarts or is unreachable')[1]?.split('\n## ')[0] ?? '';
  const block = section.match(/```json\n\s*(\{[^\n]*\})\n\s*```/)?.[1];
  if (!block) throw new Error('docs/postgres.md lost its example of the 503 answer while the database is down');
  return JSON.parse(block) as { error: string; code: string };
}

/** A node that records its attempt (`start|end <run/node> <pid> <ms>`) and waits for a file the test writes. */
const HELD_SCRIPT = `echo "start $2 $$ $(date +%s%3N)" >> "$1"
while [ ! -e "$3" ]; do sleep 0.05; done
echo "end $2 $$ $(date +%s%3N)" >> "$1"
printf ok
`;

function heldWorkflows(script: string, log: string, dir: string): Record<string, string> {
  const node = (id: string, file: string, deps: string[] = []) =>
    `  - id: ${id}${deps.length ? `\n    depends_on: [${deps.join(', ')}]` : ''}\n    bash: 'bash "${script}" "${log}" "$WORKFLOW_ID/${id}" "${join(dir, file)}"'`;
  return {
    held: `name: held\ndescription: nodes that wait for files across a database restart and an outage\nnodes:\n${[
      node('first', 'open-1'), node('left', 'open-2', ['first']), node('right', 'open-2', ['first']), node('last', 'open-1', ['left', 'right']),
    ].join('\n')}\n`,
    'held-gate': `name: held-gate\ndescription: a step, a gate answered after the restart, a step\nnodes:\n${[
      node('build', 'open-0'), '  - id: review\n    depends_on: [build]\n    approval:\n      message: "Ship it?"', node('ship', 'open-0', ['review']),
    ].join('\n')}\n`,
  };
}

/**
 * Follows an SSE stream from its beginning (`Last-Event-ID: 0`) as an EventSource does: when the
 * server ends it or the connection drops, it reconnects after the stream's `retry` (250 ms) with
 * the id of the last frame received.
 */
function followSse(url: string): { frames(): SseFrame[]; opens(): number; close(): void } {
  const clients: SseClient[] = [];
  const frames = () => clients.flatMap((c) => c.frames.filter((f) => f.id !== undefined));
  let closed = false;
  void (async () => {
    while (!closed) {
      const client = await openSse(url, { lastEventId: frames().at(-1)?.id ?? 0 }).catch(() => undefined);
      if (client) {
        clients.push(client);
        if (closed) client.close();
        await client.ended;
      }
      if (!closed) await new Promise((r) => setTimeout(r, 250));
    }
  })();
  return {
    frames,
    opens: () => clients.length,
    close: () => {
      closed = true;
      for (const c of clients) c.close();
    },
  };
}

it('a PostgreSQL restart and a short outage mid-run lose nothing: the processes reconnect, a run asked for while the database is down gets 503 naming it, every node runs and succeeds once, every run completes, and a stream that stays open gets every event once', async () => {
  const home = await makeTempHome();
  try {
    const url = await cluster.createDatabase('restarted');
    const dir = join(home.home, 'held');
    await mkdir(dir);
    const script = join(home.home, 'held.sh');
    const log = join(home.home, 'attempts.log');
    writeFileSync(script, HELD_SCRIPT);
    writeFileSync(log, '');
    writeFileSync(join(dir, 'open-0'), '');
    for (const [name, yaml] of Object.entries(heldWorkflows(script, log, dir))) await writeHomeWorkflow(home, name, yaml);
    // Each store operation waits out an unreachable database for 2 s here (30 s by default), so
    // the outage below outlasts it: the API must answer 503, the supervisor must wait, not give up.
    const env = { DATABASE_URL: url.replace('cairn@', 'cairn:pw-never-printed@'), CAIRN_STORE_BUSY_MS: '2000', TOKEN_ENCRYPTION_KEY: 'ef'.repeat(32), CAIRN_LOG_LEVEL: 'info' };
    const server = await startServer(home, env);
    // A second supervisor (sharing the workflows and workspaces, as hosts do): no run may be
    // taken over by either during the outage, nor any node run on both.
    const otherHome = await makeTempHome();
    home.defer(() => otherHome.close());
    await mkdir(home.paths.workspaces, { recursive: true });
    symlinkSync(home.paths.workflows, otherHome.paths.workflows);
    symlinkSync(home.paths.workspaces, otherHome.paths.workspaces);
    const other = await startRole(otherHome, 'supervisor', env);
    const pids = { api: await server.pid('api'), supervisor: await server.pid('supervisor'), other: await other.supervisorPid() };
    const dashboard = followSse(`${server.url}/api/stream/__dashboard__`);
    home.defer(() => dashboard.close());

    const attempts = () => readFileSync(log, 'utf8').split('\n').filter(Boolean).map((line) => {
      const [what, key, pid, ms] = line.split(' ');
      return { what: what!, key: key!, pid: pid!, ms: Number(ms) };
    });
    const started = (node: string) => attempts().filter((a) => a.what === 'start' && a.key.endsWith(`/${node}`)).length;
    const ended = (node: string) => attempts().filter((a) => a.what === 'end' && a.key.endsWith(`/${node}`)).length;
    const statusOf = async (runId: string) => (await getRun(server.url, runId)).run.status as string;

    const runs = [(await startRun(server.url, 'held')).runId, (await startRun(server.url, 'held')).runId];
    const gated = (await startRun(server.url, 'held-gate')).runId;
    await waitFor(async () => started('first') === 2 && (await statusOf(gated)) === 'paused', { what: 'both runs at their first node, the other at its gate' });

    // Each process's connection that listens for changes (LISTEN), as the server sees them.
    const listening = async () => {
      const admin = new pg.Client({ connectionString: cluster.urlOf('postgres') });
      await admin.connect();
      try {
        const { rows } = await admin.query(`SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE datname = 'restarted' AND application_name = 'cairn-listen' AND query LIKE 'LISTEN%'`);
        return rows[0].n as number;
      } finally {
        await admin.end();
      }
    };
    const listeners = await listening();
    expect(listeners).toBeGreaterThanOrEqual(2); // the API's and the supervisor's at least

    // 1. A restart (fast shutdown: every connection is cut) while two nodes run.
    await cluster.restart();
    writeFileSync(join(dir, 'open-1'), '');
    await waitFor(() => started('left') === 2 && started('right') === 2, { what: 'the next nodes to start after the restart' });
    const approve = await fetch(`${server.url}/api/workflows/runs/${gated}/approve`, { method: 'POST' });
    expect(approve.status).toBe(200);

    // 2. An outage longer than a store operation's wait, while four nodes end: their records, the
    // supervisor's lease renewals and a new run all wait for the database, then fail for now.
    await cluster.shutDown();
    writeFileSync(join(dir, 'open-2'), '');
    await waitFor(() => ended('left') === 2 && ended('right') === 2, { what: 'the nodes to end while the database is down' });
    const asked = Date.now();
    const refused = await fetch(`${server.url}/api/workflows/held/run`, { method: 'POST', headers: json, body: '{}' });
    const refusedAfterMs = Date.now() - asked;
    const body = (await refused.json()) as { error: string; code: string };
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([503, '5']);
    // docs/postgres.md's example of this answer, with this test's server and wait.
    const documented = documentedOutageAnswer();
    expect(body).toEqual({
      ...documented,
      error: documented.error
        .replace('postgres://cairn:***@db.internal:5432/cairn', `postgres://cairn:***@127.0.0.1:${cluster.port}/restarted`)
        .replace('for 30 s', 'for 2 s')
        .replace('10.0.0.5:5432', `127.0.0.1:${cluster.port}`),
    });
    expect(refusedAfterMs).toBeLessThan(10_000);
    expect((await fetch(`${server.url}/health/db`)).status).toBe(503);
    await waitFor(() => server.output().includes('supervisor.heartbeat_failed'), { what: 'the supervisor to log that its lease renewals fail' });
    await cluster.startUp();

    // After it: the same processes go on (none exited), and the runs complete.
    const after = (await startRun(server.url, 'held')).runId;
    const all = [...runs, gated, after];
    await waitFor(async () => (await Promise.all(all.map(statusOf))).every((s) => ['completed', 'failed', 'cancelled'].includes(s)), {
      what: 'every run to end', timeoutMs: 60_000,
    });
    expect(await Promise.all(all.map(statusOf))).toEqual(all.map(() => 'completed'));
    expect({ api: await server.pid('api'), supervisor: await server.pid('supervisor'), other: await other.supervisorPid() }).toEqual(pids);
    // Nobody took a run over or gave a job back (logged at info), and no write was fenced.
    expect(`${server.output()}${other.output()}`).toContain('supervisor.started');
    expect(`${server.output()}${other.output()}`).not.toMatch(/run\.takeover_started|supervisor\.jobs_requeued|not by sup-/);
    // Every LISTEN connection came back (polling covered the moments without it).
    await waitFor(async () => (await listening()) === listeners, { what: `the ${listeners} LISTEN connections to be back` });

    // Every node ran once, its attempts never overlapping, and its success is recorded once.
    const store = openStore(postgresStoreConfig(url));
    home.defer(() => store.close());
    const byKey = new Map<string, string[]>();
    for (const a of attempts()) byKey.set(a.key, [...(byKey.get(a.key) ?? []), a.what]);
    expect(Object.fromEntries(byKey)).toEqual(Object.fromEntries([
      ...[...runs, after].flatMap((id) => ['first', 'left', 'right', 'last'].map((n) => [`${id}/${n}`, ['start', 'end']] as const)),
      ...['build', 'ship'].map((n) => [`${gated}/${n}`, ['start', 'end']] as const),
    ]));
    expect((await store.listRuns({ limit: 100 })).map((r) => r.id).sort()).toEqual([...all].sort());
    const everyEvent: { run: string; seq: number }[] = [];
    for (const runId of all) {
      const events = await store.listRunEvents(runId);
      everyEvent.push(...events.map((e) => ({ run: runId, seq: e.seq })));
      const nodes = runId === gated ? ['build', 'review', 'ship'] : ['first', 'left', 'right', 'last'];
      for (const node of nodes) {
        const own = events.filter((e) => e.step_name === node && ['node_started', 'node_completed', 'node_failed'].includes(e.event_type));
        expect(own.filter((e) => e.event_type === 'node_completed'), `${runId}/${node} completed once`).toHaveLength(1);
        // Its starts and ends alternate: never started again before it ended.
        expect(own.map((e) => e.event_type).join(' '), `${runId}/${node}`).toMatch(/^(node_started node_(completed|failed) ?)+$/);
      }
    }

    // The dashboard's stream, reconnecting as EventSource does, got every event once, in order.
    await waitFor(() => dashboard.frames().length >= everyEvent.length, { what: 'the stream to catch up' });
    const seqs = dashboard.frames().map((f) => f.id!);
    expect(seqs).toEqual(everyEvent.map((e) => e.seq).sort((a, b) => a - b));
    expect(dashboard.frames().map((f) => `${f.data.runId}:${f.id}`).sort()).toEqual(everyEvent.map((e) => `${e.run}:${e.seq}`).sort());

    expect(await other.stop()).toBe(0);
    expect(await server.stop()).toBe(0);
    expect(`${server.output()}${other.output()}`).not.toContain('pw-never-printed');
  } finally {
    await home.close();
  }
}, 120_000);
