import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore, postgresStoreConfig, type Store } from '../../src/store/open-store.js';
import { createSeededRandom, type SeededRandom } from '../../src/stress/seeded-random.js';
import type { Run } from '../../src/store/schemas/run.js';
import { assertBuilt } from '../cli/cli-process.js';
import { createNetHosts, type NetHosts } from '../helpers/net-hosts.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { startRole, type RoleProcess } from '../helpers/serve-role.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * One API process and three supervisor processes (`cairn serve --role …`, each with its own
 * CAIRN_HOME; the workflows and workspaces folders shared) on one PostgreSQL database, each
 * supervisor on a host of its own (a network namespace reaching the database over a veth pair,
 * and its own hostname: test/helpers/net-hosts.ts), a few hundred bash nodes in mixed runs, and
 * two kills at seeded moments: one supervisor killed -9 (its launcher starts it again on its
 * host, which takes its runs back at once), then a whole host's launcher and supervisor killed
 * -9 while it runs a node longer than the lease, so a supervisor on another host takes its runs
 * over after the lease. Each node appends its start and end (or its SIGTERM), with its host and
 * its process's ancestors (so the supervisor it ran under), to one file: no node runs twice at
 * once, on one host or two; only nodes in flight at a kill run again; each success is recorded
 * once; every run completes; a killed supervisor's runs are taken over in time; and the global
 * limit holds across the three supervisors.
 */

const SEED = 2028;
/**
 * The supervisors' lease. A live supervisor that misses it is taken over like a dead one (and
 * fenced), and its nodes in flight run again; 3 s was missed on a heavily loaded machine, and the
 * test then saw a rerun no kill explained. A supervisor also fences itself, ending its nodes, when
 * it has not renewed for its renew deadline (the lease, or the 10 s after which a heartbeat is
 * stale, less the 3 s kill grace and a 1 s margin): 10 s gives the 6 s deadline of production.
 */
const LEASE_MS = 10_000;
const KEY = 'cd'.repeat(32);
/** The global limit: of the three supervisors together, on PostgreSQL (so each may run all of it). */
const LIMIT = 8;

let net: NetHosts;
let cluster: PostgresCluster;
beforeAll(async () => {
  assertBuilt();
  net = await createNetHosts(3);
  cluster = await startPostgresCluster({ listen: net.hosts.map((h) => h.gateway) });
});
afterAll(async () => {
  await cluster?.stop();
  await net?.remove();
});

/**
 * A node that records its attempt: `start|end|term <run/node> <its pid> <its ancestors' pids> <ms>
 * <host>` (`term`: it got SIGTERM, and ends). A third argument `long` sleeps 20 s on the node's
 * first attempt (past the lease) and briefly on the next.
 */
const RECORD_SCRIPT = `a=$$; chain=""; host=$(hostname)
for i in 1 2 3 4 5 6; do read -r _ _ _ a _ < "/proc/$a/stat" || break; chain="$chain,$a"; [ "$a" -le 1 ] && break; done
trap 'echo "term $2 $$ $chain $(date +%s%3N) $host" >> "$1"; exit 143' TERM
echo "start $2 $$ $chain $(date +%s%3N) $host" >> "$1"
seconds=$3
if [ "$seconds" = long ]; then
  marker="$1.$(echo "$2" | tr / _).first"
  if [ -e "$marker" ]; then seconds=0.2; else touch "$marker"; seconds=20; fi
fi
sleep "$seconds" & wait
echo "end $2 $$ $chain $(date +%s%3N) $host" >> "$1"
printf ok
`;

function workflows(random: SeededRandom, script: string, log: string) {
  const node = (id: string, deps: string[] = [], sleep = `0.${random.int(10, 50)}`) => {
    const dependsOn = deps.length ? `\n    depends_on: [${deps.join(', ')}]` : '';
    return `  - id: ${id}${dependsOn}\n    bash: 'bash "${script}" "${log}" "$WORKFLOW_ID/${id}" ${sleep}'`;
  };
  const wf = (name: string, nodes: string[]) => `name: ${name}\ndescription: ${name}\nnodes:\n${nodes.join('\n')}\n`;
  const fanIds = Array.from({ length: 12 }, (_, i) => `w${i}`);
  const chainIds = Array.from({ length: 10 }, (_, i) => `c${i}`);
  return {
    leaf: wf('leaf', [node('a'), node('b', ['a'])]),
    fan: wf('fan', [node('start'), ...fanIds.map((id) => node(id, ['start'])), node('join', fanIds)]),
    chain: wf('chain', chainIds.map((id, i) => node(id, i ? [chainIds[i - 1]!] : []))),
    gated: wf('gated', [node('a'), '  - id: gate\n    depends_on: [a]\n    approval:\n      message: "Go on?"', node('b', ['gate'])]),
    long: wf('long', [node('slow', [], 'long')]),
    kids: wf('kids', [
      '  - id: list\n    bash: \'echo "[1,2,3,4,5]"\'',
      '  - id: each\n    depends_on: [list]\n    workflow: leaf\n    fan_out: { items: "$list.output", max_parallel: 3, join: all_success, mode: child_runs }',
      node('after', ['each']),
    ]),
  };
}

/** How many runs of each workflow, and the bash nodes (recorded by the script) each run makes. */
const plan = { long: 3, fan: 10, chain: 6, gated: 4, kids: 4 } as const;
const recordedPerRun = { long: 1, fan: 14, chain: 10, gated: 2, kids: 1 + 5 * 2 } as const;

interface Attempt {
  key: string;
  pid: string;
  ancestors: number[];
  host: string;
  start: number;
  end?: number;
  /** It ended on SIGTERM. */
  terminated?: boolean;
}

function attemptsIn(log: string): Map<string, Attempt[]> {
  const byPid = new Map<string, Attempt>();
  for (const line of readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
    const [what, key, pid, chain, ms, host] = line.split(' ');
    const id = `${key} ${pid}`;
    if (what === 'start') byPid.set(id, { key: key!, pid: pid!, ancestors: chain!.split(',').filter(Boolean).map(Number), host: host!, start: Number(ms) });
    else Object.assign(byPid.get(id)!, { end: Number(ms), ...(what === 'term' ? { terminated: true } : {}) });
  }
  const byKey = new Map<string, Attempt[]>();
  for (const a of byPid.values()) byKey.set(a.key, [...(byKey.get(a.key) ?? []), a].sort((x, y) => x.start - y.start));
  return byKey;
}

it('3 supervisors on 3 hosts, one database; a host killed -9 and a supervisor killed -9 at seeded moments: every node succeeds once, never twice at once, and every run completes', async () => {
  const url = await cluster.createDatabase('three_supervisors');
  const random = createSeededRandom(SEED);
  const homes: TempHome[] = [];
  try {
    const apiHome = await makeTempHome();
    homes.push(apiHome);
    // What hosts share: the workflows and the workspaces (scratch folders, worktrees), at the same place.
    mkdirSync(apiHome.paths.workflows, { recursive: true });
    mkdirSync(apiHome.paths.workspaces, { recursive: true });
    const script = join(apiHome.home, 'record.sh');
    const log = join(apiHome.home, 'nodes.log');
    writeFileSync(script, RECORD_SCRIPT);
    writeFileSync(log, '');
    const defs = workflows(random, script, log);
    for (const [name, yaml] of Object.entries(defs)) await writeHomeWorkflow(apiHome, name, yaml);

    const env = { DATABASE_URL: url, TOKEN_ENCRYPTION_KEY: KEY, CAIRN_RUN_LEASE_MS: String(LEASE_MS), CAIRN_MAX_CONCURRENCY: String(LIMIT) };
    const api = await startRole(apiHome, 'api', env);
    const supervisors: RoleProcess[] = [];
    for (const host of net.hosts) {
      const home = await makeTempHome();
      homes.push(home);
      symlinkSync(apiHome.paths.workflows, home.paths.workflows);
      symlinkSync(apiHome.paths.workspaces, home.paths.workspaces);
      // Each host reaches the database at its gateway, as another machine would over the network.
      const onHost = { ...env, DATABASE_URL: url.replace('127.0.0.1', host.gateway) };
      supervisors.push(await startRole(home, 'supervisor', onHost, { wrap: host.wrap }));
    }
    const store: Store = openStore(postgresStoreConfig(url));
    apiHome.defer(() => store.close());
    /** Every supervisor process that ever ran (restarted ones too), by pid. */
    const supervisorPids = new Set<number>();
    for (const s of supervisors) supervisorPids.add(await s.supervisorPid());

    const topRuns: string[] = [];
    for (const [name, count] of Object.entries(plan)) {
      for (let i = 0; i < count; i++) topRuns.push((await startRun(api.url!, name)).runId);
    }
    const expectedNodes = Object.entries(plan).reduce((sum, [name, n]) => sum + n * recordedPerRun[name as keyof typeof plan], 0);

    // Two kills, at seeded numbers of node starts, on two different hosts: first a whole host (its
    // launcher and supervisor), one running a long node's first attempt; then a supervisor alone.
    const killAt = [random.int(40, 90), random.int(130, 190)];
    const kills: { pid: number; at: number; takenOverInMs: number; orphanedRuns: number; linesBefore: number; host?: string }[] = [];
    const logLines = () => readFileSync(log, 'utf8').split('\n').filter(Boolean);
    const started = () => logLines().filter((l) => l.startsWith('start')).length;
    const approved = new Set<string>();
    const tend = async () => {
      for (const run of await store.listRuns({ status: 'paused', limit: 100 })) {
        if (approved.has(run.id)) continue;
        const res = await fetch(`${api.url}/api/workflows/runs/${run.id}/approve`, { method: 'POST' });
        if (res.ok) approved.add(run.id);
      }
    };

    /** The hosts running a `long` node's first attempt now. */
    const longHosts = () => {
      const open = [...attemptsIn(log).values()].flat().filter((a) => a.key.endsWith('/slow') && a.end === undefined);
      return net.hosts.flatMap((h, i) => (open.some((a) => a.host === h.name) ? [i] : []));
    };
    let deadHost = -1;
    for (const k of [0, 1]) {
      await waitFor(async () => (await tend(), started() >= killAt[k]! && (k > 0 || longHosts().length > 0)), {
        what: `${killAt[k]} node starts`, timeoutMs: 120_000,
      });
      const victim = k === 0 ? longHosts()[0]! : [0, 1, 2].filter((i) => i !== deadHost)[random.int(0, 1)]!;
      const pid = await supervisors[victim]!.supervisorPid();
      const id = (await store.listHeartbeats()).find((b) => b.pid === pid)!.id;
      const linesBefore = logLines().length;
      // A host's death: its launcher first, so it cannot start the supervisor again.
      if (k === 0) supervisors[victim]!.launcher.kill('SIGKILL');
      process.kill(pid, 'SIGKILL');
      const at = Date.now();
      const owned = async () => (await store.listRuns({ status: 'running', limit: 1000 })).filter((r: Run) => r.owner_id === id);
      const orphanedRuns = (await owned()).length;
      await waitFor(async () => (await tend(), (await owned()).length === 0), { what: `the runs of killed supervisor ${pid} to be taken over`, timeoutMs: 60_000 });
      kills.push({ pid, at, takenOverInMs: Date.now() - at, orphanedRuns, linesBefore, ...(k === 0 ? { host: net.hosts[victim]!.name } : {}) });
      if (k === 0) {
        deadHost = victim;
        continue;
      }
      // The launcher restarts it (its restart behaviour is unchanged under --role supervisor).
      const restarted = await waitFor(async () => {
        const now = await supervisors[victim]!.supervisorPid().catch(() => pid);
        return now !== pid ? now : undefined;
      }, { what: 'the killed supervisor to be restarted' });
      supervisorPids.add(restarted);
    }

    await waitFor(async () => {
      await tend();
      const runs = await Promise.all(topRuns.map((id) => store.getRun(id)));
      return runs.every((r) => r && ['completed', 'failed', 'cancelled'].includes(r.status));
    }, { what: 'every run to end', timeoutMs: 240_000 });

    // Every run (the child runs too) completed.
    const all = await store.listRuns({ limit: 1000 });
    expect(all.filter((r) => r.status !== 'completed').map((r) => `${r.workflow_name} ${r.id} ${r.status} ${r.error ?? ""}`)).toEqual([]);
    expect(all).toHaveLength(topRuns.length + plan.kids * 5);

    // Each recorded node's success is recorded exactly once, and every planned node ran.
    const attempts = attemptsIn(log);
    expect(attempts.size).toBe(expectedNodes);
    for (const run of all) {
      const completed = (await store.listRunEvents(run.id)).filter((e) => e.event_type === 'node_completed' && e.step_name !== null);
      const counts = new Map<string, number>();
      for (const e of completed) counts.set(e.step_name!, (counts.get(e.step_name!) ?? 0) + 1);
      expect([...counts].filter(([, n]) => n !== 1), `run ${run.id} (${run.workflow_name})`).toEqual([]);
      for (const key of attempts.keys()) {
        if (key.startsWith(`${run.id}/`)) expect(counts.get(key.slice(run.id.length + 1)), key).toBe(1);
      }
    }

    // Only nodes in flight at a kill ran again, and never while their earlier attempt still ran.
    const supervisorOf = (a: Attempt) => a.ancestors.find((p) => supervisorPids.has(p));
    const killOf = new Map(kills.map((k) => [k.pid, k.at]));
    let reruns = 0;
    for (const [key, list] of attempts) {
      expect(list.at(-1)!.end, `${key}'s last attempt ended`).toBeDefined();
      for (let i = 0; i + 1 < list.length; i++) {
        reruns += 1;
        const earlier = list[i]!;
        const later = list[i + 1]!;
        const killedAt = killOf.get(supervisorOf(earlier) ?? -1);
        // Its earlier attempt descends from a supervisor process that was killed: spawned before
        // that kill, since a dead process spawns nothing (its start line may be written just after).
        expect(killedAt, `${key}: ran again, but its earlier attempt's supervisor was not killed`).toBeDefined();
        // No two attempts at once: the earlier one had ended (or its supervisor was dead) when the next began.
        expect(later.start, `${key}: ran again while its earlier attempt still ran`).toBeGreaterThanOrEqual(earlier.end ?? killedAt!);
      }
    }
    for (const a of [...attempts.values()].flat()) expect(supervisorOf(a), `attempt ${a.key} ran under a supervisor`).toBeDefined();

    // The global limit held across the three supervisors, kills and take-overs included: never
    // more than LIMIT nodes running at once (in the log's order, which is the order they wrote
    // in). A killed supervisor's places come free at its death while the processes it started run
    // on until the take-over kills them: those are counted up to the kill only.
    let running = new Map<string, number | undefined>();
    let most = 0;
    for (const [i, line] of logLines().entries()) {
      for (const k of kills) {
        if (k.linesBefore === i) running = new Map([...running].filter(([, sup]) => sup !== k.pid));
      }
      const [what, key, pid, chain] = line.split(' ');
      const sup = chain!.split(',').map(Number).find((p) => supervisorPids.has(p));
      if (what === 'end') running.delete(`${key} ${pid}`);
      else if (!kills.some((k) => k.pid === sup && i >= k.linesBefore)) running.set(`${key} ${pid}`, sup);
      most = Math.max(most, running.size);
    }
    expect(most).toBeLessThanOrEqual(LIMIT);

    // The dead host's long node: its spawn helper ended it (SIGTERM) as soon as the supervisor
    // died, long before the lease let another host take the run over and run it again there.
    const hostKill = kills[0]!;
    const cutShort = [...attempts.values()].filter((list) => list[0]!.key.endsWith('/slow') && list[0]!.host === hostKill.host);
    expect(cutShort.length, 'long nodes running on the host that died').toBeGreaterThan(0);
    for (const [first, again] of cutShort) {
      expect(first!.terminated, `${first!.key} ended by SIGTERM`).toBe(true);
      expect(first!.end! - hostKill.at, `${first!.key} ended within the helper's grace`).toBeLessThan(LEASE_MS);
      expect(again!.host, `${first!.key} ran again on another host`).not.toBe(hostKill.host);
      expect(again!.start).toBeGreaterThanOrEqual(first!.end!);
    }

    // The work of each killed supervisor was taken over within the lease and 2 s.
    for (const k of kills) expect(k.takenOverInMs, `supervisor ${k.pid}'s ${k.orphanedRuns} runs taken over`).toBeLessThanOrEqual(LEASE_MS + 2_000);
    expect(kills.reduce((n, k) => n + k.orphanedRuns, 0)).toBeGreaterThan(0);
    // The reruns are at most what was in flight on the killed supervisors.
    expect(reruns).toBeLessThanOrEqual(kills.length * LIMIT);

    for (const [i, s] of supervisors.entries()) if (i !== deadHost) expect(await s.stop()).toBe(0);
    expect(await api.stop()).toBe(0);
  } finally {
    for (const home of homes.reverse()) await home.close();
  }
}, 300_000); // the waits inside allow up to 240 s for every run to end on a loaded machine
