import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore, postgresStoreConfig } from '../../src/store/open-store.js';
import { assertBuilt } from '../cli/cli-process.js';
import { createNetHosts, type NetHosts } from '../helpers/net-hosts.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { startRole, type RoleProcess } from '../helpers/serve-role.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * A network split: two supervisors on two hosts (network namespaces reaching PostgreSQL over veth
 * pairs, test/helpers/net-hosts.ts), and the one running a node longer than the lease is cut off
 * from the database (its link down) while staying alive. It fences itself before its lease runs
 * out: its node's process group is ended, then the other host takes the run over and runs the
 * node again, never both at once. When its link is back it lets the run go, committing nothing.
 */

/** The lease: its renew deadline is 8 s less the 3 s kill grace and a 1 s margin, 4 s. */
const LEASE_MS = 8_000;
const KEY = 'ab'.repeat(32);

let net: NetHosts;
let cluster: PostgresCluster;
beforeAll(async () => {
  assertBuilt();
  net = await createNetHosts(2);
  cluster = await startPostgresCluster({ listen: net.hosts.map((h) => h.gateway) });
});
afterAll(async () => {
  await cluster?.stop();
  await net?.remove();
});

/**
 * `start|end|term <run/node> <pid> <ms> <host>` (`term`: it got SIGTERM, and ends). Its first
 * attempt sleeps 60 s (past the lease), the next ones 0.2 s.
 */
const RECORD_SCRIPT = `host=$(hostname)
trap 'echo "term $2 $$ $(date +%s%3N) $host" >> "$1"; exit 143' TERM
echo "start $2 $$ $(date +%s%3N) $host" >> "$1"
marker="$1.$(echo "$2" | tr / _).first"
if [ -e "$marker" ]; then seconds=0.2; else touch "$marker"; seconds=60; fi
sleep "$seconds" & wait
echo "end $2 $$ $(date +%s%3N) $host" >> "$1"
printf "%s" "$host"
`;

interface Attempt {
  pid: string;
  host: string;
  start: number;
  end?: number;
  terminated?: boolean;
}

function attemptsIn(log: string, key: string): Attempt[] {
  const byPid = new Map<string, Attempt>();
  for (const line of readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
    const [what, k, pid, ms, host] = line.split(' ');
    if (k !== key) continue;
    if (what === 'start') byPid.set(pid!, { pid: pid!, host: host!, start: Number(ms) });
    else Object.assign(byPid.get(pid!)!, { end: Number(ms), ...(what === 'term' ? { terminated: true } : {}) });
  }
  return [...byPid.values()].sort((a, b) => a.start - b.start);
}

it('a supervisor cut off from the database ends its node before its lease runs out; another host runs it once more; back online, the first commits nothing', async () => {
  const url = await cluster.createDatabase('split');
  const homes: TempHome[] = [];
  let cut: number | undefined;
  try {
    const apiHome = await makeTempHome();
    homes.push(apiHome);
    mkdirSync(apiHome.paths.workspaces, { recursive: true });
    const script = join(apiHome.home, 'record.sh');
    const log = join(apiHome.home, 'nodes.log');
    writeFileSync(script, RECORD_SCRIPT);
    writeFileSync(log, '');
    await writeHomeWorkflow(apiHome, 'long', `name: long\ndescription: a node longer than the lease, then one more\nnodes:\n` +
      `  - id: slow\n    bash: 'bash "${script}" "${log}" "$WORKFLOW_ID/slow"'\n` +
      `  - id: after\n    depends_on: [slow]\n    bash: 'echo "$slow.output"'\n`);

    const env = { DATABASE_URL: url, TOKEN_ENCRYPTION_KEY: KEY, CAIRN_RUN_LEASE_MS: String(LEASE_MS) };
    const [api, ...supervisors] = await Promise.all([
      startRole(apiHome, 'api', env),
      ...net.hosts.map(async (host) => {
        const home = await makeTempHome();
        homes.push(home);
        symlinkSync(apiHome.paths.workflows, home.paths.workflows);
        symlinkSync(apiHome.paths.workspaces, home.paths.workspaces);
        // Info lines too: the fence and its lift are what the test watches for.
        const onHost = { ...env, CAIRN_LOG_LEVEL: 'info', DATABASE_URL: url.replace('127.0.0.1', host.gateway) };
        return startRole(home, 'supervisor', onHost, { wrap: host.wrap });
      }),
    ]) as [RoleProcess, ...RoleProcess[]];
    const store = openStore(postgresStoreConfig(url));
    apiHome.defer(() => store.close());

    const { runId } = await startRun(api.url!, 'long');
    const key = `${runId}/slow`;
    const first = await waitFor(() => attemptsIn(log, key)[0], { what: 'the slow node to start' });
    const cutHost = net.hosts.findIndex((h) => h.name === first.host);
    const owner = (await store.getRun(runId))!.owner_id!;
    await net.setLink(net.hosts[cutHost]!, false);
    cut = cutHost;
    const cutAt = Date.now();

    // The cut-off supervisor fences itself: its node gets SIGTERM, well before the lease runs out.
    await waitFor(() => attemptsIn(log, key)[0]!.end !== undefined, { what: 'the first attempt to end', timeoutMs: 20_000 });
    await waitFor(async () => (await store.getRun(runId))?.owner_id !== owner, { what: 'the run to be taken over', timeoutMs: 30_000 });
    await waitFor(async () => (await store.getRun(runId))?.status === 'completed', { what: 'the run to complete', timeoutMs: 30_000 });
    const [cutShort, again, ...more] = attemptsIn(log, key);
    expect(more).toEqual([]);
    expect(cutShort!.terminated, 'the first attempt ended on SIGTERM').toBe(true);
    expect(cutShort!.end! - cutAt, 'the first attempt ended within the lease').toBeLessThan(LEASE_MS);
    expect(again!.host, 'the node ran again on the other host').not.toBe(first.host);
    expect(again!.start, 'the second attempt began after the first ended').toBeGreaterThanOrEqual(cutShort!.end!);
    expect(supervisors[cutHost]!.output()).toContain('supervisor.fenced');

    // Back online: the cut-off supervisor finds the run taken over, lets it go and commits nothing for it.
    const eventsDone = await store.listRunEvents(runId);
    await net.setLink(net.hosts[cutHost]!, true);
    cut = undefined;
    await waitFor(() => supervisors[cutHost]!.output().includes('supervisor.fence_lifted'), { what: 'the fence to be lifted', timeoutMs: 60_000 });
    const events = await store.listRunEvents(runId);
    expect(events.map((e) => `${e.seq} ${e.event_type} ${e.step_name ?? ''}`)).toEqual(eventsDone.map((e) => `${e.seq} ${e.event_type} ${e.step_name ?? ''}`));
    // Each node succeeded once; the slow one with the output of its attempt on the other host.
    const completed = events.filter((e) => e.event_type === 'node_completed');
    expect(completed.map((e) => e.step_name).sort()).toEqual(['after', 'slow']);
    expect(completed.find((e) => e.step_name === 'slow')!.data.node_output).toBe(again!.host);
    const run = (await store.getRun(runId))!;
    expect(run.status).toBe('completed');

    for (const s of supervisors) expect(await s.stop()).toBe(0);
    expect(await api.stop()).toBe(0);
  } finally {
    if (cut !== undefined) await net.setLink(net.hosts[cut]!, true);
    for (const home of homes.reverse()) await home.close();
  }
}, 120_000);
