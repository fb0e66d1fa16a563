import { readFileSync, symlinkSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore, postgresStoreConfig } from '../../src/store/open-store.js';
import { assertBuilt } from '../cli/cli-process.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { startRole, type RoleProcess } from '../helpers/serve-role.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * Fencing with real processes: the supervisor driving a run is stopped (SIGSTOP) past its lease
 * while its nodes run, another takes the run over and runs them again, and the first is resumed
 * (SIGCONT) while the second still drives the run. The first finds itself past its renew
 * deadline and fences itself: it ends its nodes (the take-over killed their processes already)
 * and lets the run go. Nothing it writes for the run commits, and it asks nothing of the run's
 * child run, which the new owner waits for.
 */

/** The shortest lease a supervisor on PostgreSQL accepts (renew-deadline.ts): a renew deadline of 2 s. */
const LEASE_MS = 6_000;
const KEY = 'ef'.repeat(32);

let cluster: PostgresCluster;
beforeAll(async () => {
  assertBuilt();
  cluster = await startPostgresCluster();
});
afterAll(async () => {
  await cluster?.stop();
});

/** `start|end <run/node> <pid> <ancestors' pids>`, then prints the node's pid. */
const RECORD_SCRIPT = `a=$$; chain=""
for i in 1 2 3 4 5 6; do read -r _ _ _ a _ < "/proc/$a/stat" || break; chain="$chain,$a"; [ "$a" -le 1 ] && break; done
echo "start $2 $$ $chain" >> "$1"
sleep "$3"
echo "end $2 $$ $chain" >> "$1"
printf "%s" "$$"
`;

it('a supervisor stopped past its lease and resumed after a take-over commits nothing for the run; the new owner completes it', async () => {
  const url = await cluster.createDatabase('fencing');
  const homes: TempHome[] = [];
  const stopped: number[] = [];
  try {
    const apiHome = await makeTempHome();
    homes.push(apiHome);
    mkdirSync(apiHome.paths.workspaces, { recursive: true });
    const script = join(apiHome.home, 'record.sh');
    const log = join(apiHome.home, 'nodes.log');
    writeFileSync(script, RECORD_SCRIPT);
    writeFileSync(log, '');
    // The slow nodes retry any failure: a supervisor that sees its node killed would run it again.
    const node = (id: string, seconds: string, deps: string[] = []) =>
      `  - id: ${id}${deps.length ? `\n    depends_on: [${deps.join(', ')}]` : ''}\n    bash: 'bash "${script}" "${log}" "$WORKFLOW_ID/${id}" ${seconds}'` +
      (deps.length ? '' : '\n    retry: { max_attempts: 3, delay_ms: 1000, on_error: all }');
    // And a child run, still running when the resumed supervisor gives the run up (its nodes'
    // failures decide `after0`'s skip, which is refused, and the run fails in its eyes): it would
    // cancel the child on its way out. The child waits for the test to release it, once that
    // refused cancel is logged, so a slow machine cannot let it end first.
    const release = join(apiHome.home, 'release-child');
    await writeHomeWorkflow(apiHome, 'child', `name: child\ndescription: one node that waits to be released\nnodes:\n  - id: c\n    bash: 'while [ ! -e "${release}" ]; do sleep 0.05; done; echo released'\n`);
    await writeHomeWorkflow(apiHome, 'slow', `name: slow\ndescription: three slow nodes and a child run, then one more\nnodes:\n${[
      node('p0', '6'), node('p1', '6'), node('p2', '6'), '  - id: kid\n    workflow: child', node('after0', '0.1', ['p0']),
      node('last', '0.1', ['p0', 'p1', 'p2', 'kid', 'after0']),
    ].join('\n')}\n`);

    // Info lines too: the lifted fence is what the test waits for.
    const env = { DATABASE_URL: url, TOKEN_ENCRYPTION_KEY: KEY, CAIRN_RUN_LEASE_MS: String(LEASE_MS), CAIRN_LOG_LEVEL: 'info' };
    const api = await startRole(apiHome, 'api', env);
    const supervisors: RoleProcess[] = [];
    for (let i = 0; i < 2; i++) {
      const home = await makeTempHome();
      homes.push(home);
      symlinkSync(apiHome.paths.workflows, home.paths.workflows);
      symlinkSync(apiHome.paths.workspaces, home.paths.workspaces);
      supervisors.push(await startRole(home, 'supervisor', env));
    }
    const store = openStore(postgresStoreConfig(url));
    apiHome.defer(() => store.close());

    const { runId } = await startRun(api.url!, 'slow');
    const lines = () => readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => l.split(' '));
    const slowStarts = () => lines().filter(([what, key]) => what === 'start' && /\/p\d$/.test(key!) && key!.startsWith(`${runId}/`));
    await waitFor(() => slowStarts().length === 3, { what: 'the three slow nodes to start' });
    const first = (await store.getRun(runId))!.owner_id!;
    const beats = await store.listHeartbeats();
    const firstPid = beats.find((b) => b.id === first)!.pid;
    const secondPid = await waitFor(async () => {
      for (const s of supervisors) {
        const pid = await s.supervisorPid();
        if (pid !== firstPid) return pid;
      }
      return undefined;
    });

    // Paused past its lease: the other supervisor takes the run over and starts the nodes again.
    process.kill(firstPid, 'SIGSTOP');
    stopped.push(firstPid);
    await waitFor(async () => (await store.getRun(runId))?.owner_id !== first, { what: 'the run to be taken over', timeoutMs: 30_000 });
    const second = (await store.getRun(runId))!.owner_id!;
    expect((await store.listHeartbeats()).find((b) => b.id === second)?.pid).toBe(secondPid);
    const underSecond = () => slowStarts().filter(([, , , chain]) => chain!.split(',').includes(String(secondPid)));
    await waitFor(() => underSecond().length === 3, { what: 'the nodes to start again under the new owner' });
    const eventsAtTakeOver = (await store.listRunEvents(runId)).length;

    // Resumed while the new owner still runs the nodes: past its renew deadline, it fences
    // itself, ends its nodes (their processes already killed by the take-over) and lets the run
    // go; what it tries to record of them is refused.
    const linesBeforeResume = lines().length;
    process.kill(firstPid, 'SIGCONT');
    stopped.pop();
    const resumedAt = new Date().toISOString();
    await waitFor(async () => {
      const beat = (await store.listHeartbeats()).find((b) => b.id === first);
      return beat !== undefined && beat.heartbeat_at > resumedAt;
    }, { what: 'the resumed supervisor to beat again' });
    const firstOutput = () => supervisors.find((s) => s.output().includes('supervisor.fenced'))?.output() ?? '';
    await waitFor(() => firstOutput().includes('supervisor.fence_lifted'), { what: 'the resumed supervisor to fence itself, let the run go and lift its fence' });
    expect(supervisors.filter((s) => s.output().includes('supervisor.fenced'))).toHaveLength(1);
    expect(firstOutput()).not.toContain('child.cancel');

    // Then the child may end.
    writeFileSync(release, '');
    await waitFor(async () => ['completed', 'failed', 'cancelled'].includes((await store.getRun(runId))!.status), { what: 'the run to end', timeoutMs: 60_000 });
    // The resumed supervisor started nothing more: whatever it decided, it could not record.
    const underFirst = lines().slice(linesBeforeResume).filter(([what, , , chain]) => what === 'start' && chain!.split(',').includes(String(firstPid)));
    expect(underFirst.map(([, key]) => key)).toEqual([]);
    const run = (await store.getRun(runId))!;
    // The child run the new owner waited for was not cancelled by the resumed supervisor giving
    // the run up (it asks for no cancel as it lets go; one it asked for would be fenced like its events).
    const kids = await store.listChildRuns(runId, 'kid');
    expect(kids.map((k) => k.status)).toEqual(['completed']);
    expect((await store.listRunJobs(kids[0]!.id)).map((j) => j.kind)).toEqual(['start_run']);
    expect(run.status).toBe('completed');
    const events = await store.listRunEvents(runId);
    // Nothing after the take-over says a node failed or was interrupted: the first supervisor's records were fenced off.
    const after = events.slice(eventsAtTakeOver);
    expect(after.filter((e) => /failed|interrupted/.test(e.event_type)).map((e) => `${e.event_type} ${e.step_name}`)).toEqual([]);
    // Each node succeeded once, and the three slow ones with the output of their run under the new owner.
    const completed = events.filter((e) => e.event_type === 'node_completed');
    expect(completed.map((e) => e.step_name).sort()).toEqual(['after0', 'kid', 'last', 'p0', 'p1', 'p2']);
    const secondPids = new Set(underSecond().map(([, , pid]) => pid));
    for (const e of completed.filter((c) => /^p\d$/.test(c.step_name ?? ''))) expect(secondPids.has(String(e.data.node_output)), e.step_name ?? '').toBe(true);
    // The resumed supervisor said why its records were refused.
    await waitFor(() => supervisors.some((s) => s.output().includes(`not by ${first}`)), {
      what: 'the resumed supervisor to log the refusal',
    });

    for (const s of supervisors) expect(await s.stop()).toBe(0);
    expect(await api.stop()).toBe(0);
  } finally {
    for (const pid of stopped) process.kill(pid, 'SIGCONT');
    for (const home of homes.reverse()) await home.close();
  }
});
