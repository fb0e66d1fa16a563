import type { RecordedEvent, RecordedRun } from './history.js';
import type { DiskFullRecord } from './disk-fulls.js';
import { interruptingKinds, type KillRecord } from './kill-record.js';

/**
 * The invariants `cairn stress` proves, as pure functions of the recorded history: every run
 * completed, every node's success recorded once, re-runs only of attempts a kill cut short, kills
 * that only interrupt, gapless event logs, no process left behind, every kill landed.
 */

export interface CheckInput {
  runs: readonly RecordedRun[];
  /** How many runs the pass meant to start. */
  runsAsked: number;
  /** The runs `cairn stress` started itself (the others are their child runs). */
  startedRunIds: readonly string[];
  /** Every node path a completed run of a workflow records, by workflow name. */
  expectedPaths: Readonly<Record<string, readonly string[]>>;
  kills: readonly KillRecord[];
  killsAsked: number;
  /** The resumes `cairn stress` had to POST, with the error of the run it resumed. */
  resumes: readonly { runId: string; error: string | null }[];
  /** The server's log holds these runs' events and nothing else (its own scratch home). */
  wholeLog: boolean;
  /** Processes that carried the scratch home after the server stopped; undefined when not checked. */
  orphans: readonly { pid: number; comm: string; where: string }[] | undefined;
  /** Uncaught errors a server process died of, from its output; undefined when not checked. */
  serverCrashes?: number | undefined;
  /** The full-disk episodes of `--disk-full`; undefined without it. */
  diskFulls?: readonly DiskFullRecord[] | undefined;
  /** `PRAGMA integrity_check` of the database once the server stopped; undefined when not checked. */
  databaseIntegrity?: string | undefined;
}

export interface CheckResult {
  id: string;
  name: string;
  /** null: not checked in this mode. */
  ok: boolean | null;
  detail: string;
  /** What to look at next when it failed. */
  next?: string;
}

export interface StressCounts {
  runs: number;
  childRuns: number;
  nodesCompleted: number;
  attempts: number;
  reruns: number;
  inFlightAtKills: number;
  interruptedAttempts: number;
  failedAttempts: number;
  resumes: number;
  killsLanded: number;
}

const MAX_LISTED = 5;
const list = (items: readonly string[]) => items.slice(0, MAX_LISTED).join('; ') + (items.length > MAX_LISTED ? `; … ${items.length - MAX_LISTED} more` : '');

interface Attempt {
  run: RecordedRun;
  path: string;
  start: RecordedEvent;
  endAt: number;
  /** Its terminal event, when it has one. */
  end?: RecordedEvent;
}

/** Each node attempt (a `node_started`), with its terminal event and that event's time (Infinity if none). */
function attemptsOf(run: RecordedRun): Attempt[] {
  const ends = new Map<string, RecordedEvent>();
  for (const e of run.events) {
    if ((e.type === 'node_completed' || e.type === 'node_failed') && e.attemptId) ends.set(e.attemptId, e);
  }
  return run.events
    .filter((e) => e.type === 'node_started' && e.path !== null)
    .map((start) => {
      const end = start.attemptId !== undefined ? ends.get(start.attemptId) : undefined;
      return { run, path: start.path!, start, endAt: end?.at ?? Infinity, ...(end ? { end } : {}) };
    });
}

/**
 * The attempt ran at some moment of the kill's effect (see KillRecord.effectUntilMs), or ran on
 * the spawn helper the kill took (its interruption names the helper's pid): an attempt handed to
 * a helper in the moment between its SIGKILL and the supervisor's noticing starts after the kill.
 */
function inFlightAt(attempt: Attempt, kill: KillRecord): boolean {
  if (!kill.landed || !interruptingKinds.has(kill.kind)) return false;
  if (attempt.start.at <= kill.effectUntilMs && kill.atMs <= attempt.endAt) return true;
  return kill.kind === 'helper' && attempt.end?.interrupted === true && (attempt.end.error ?? '').includes(`pid ${kill.pid})`);
}

/** `each[0]/a` and `each[0]` are below `each`: a compound node's records are written after its nodes'. */
function isBelow(path: string, parent: string): boolean {
  return path.startsWith(`${parent}/`) || path.startsWith(`${parent}[`);
}

function checkRunsCompleted(input: CheckInput): CheckResult {
  const unfinished = input.runs.filter((r) => r.status !== 'completed').map((r) => `${r.id} (${r.workflow}) ${r.status}${r.error ? `: ${r.error.slice(0, 120)}` : ''}`);
  const missing = input.startedRunIds.filter((id) => !input.runs.some((r) => r.id === id)).map((id) => `${id} not found`);
  const notStarted = input.startedRunIds.length < input.runsAsked ? [`${input.runsAsked - input.startedRunIds.length} of ${input.runsAsked} runs never started`] : [];
  const bad = [...notStarted, ...missing, ...unfinished];
  return {
    id: 'runs-completed', name: 'every run completed (resumed if it failed)', ok: bad.length === 0,
    detail: bad.length === 0 ? `${input.runs.length} runs completed, ${input.resumes.length} after a resume` : list(bad),
    next: 'cairn run get <id> --events on the runs named, and the server log',
  };
}

function checkSuccessOnce(input: CheckInput): CheckResult {
  const problems: string[] = [];
  for (const run of input.runs) {
    const completed = new Map<string, number>();
    for (const e of run.events) if (e.type === 'node_completed' && e.path !== null) completed.set(e.path, (completed.get(e.path) ?? 0) + 1);
    for (const [path, n] of completed) if (n > 1) problems.push(`${run.id} ${path}: completed ${n} times`);
    const started = new Set(run.events.filter((e) => e.type === 'node_started' && e.path !== null).map((e) => e.path!));
    const expected = new Set([...(input.expectedPaths[run.workflow] ?? []), ...started]);
    if (run.status === 'completed') for (const path of expected) if (!completed.has(path)) problems.push(`${run.id} ${path}: no success recorded`);
  }
  return {
    id: 'success-once', name: "every node's success recorded exactly once", ok: problems.length === 0,
    detail: problems.length === 0 ? 'one node_completed per node path' : list(problems),
    next: 'the node_completed events of the paths named (cairn run get <id> --events)',
  };
}

/**
 * A re-run is explained when the attempt before it, or an attempt of a node below it (a fan-out
 * instance's nodes) between the two, was in flight at a kill that cuts attempts short.
 */
function checkReruns(input: CheckInput, attempts: readonly Attempt[]): CheckResult {
  const unexplained: string[] = [];
  const byPath = new Map<string, Attempt[]>();
  for (const a of attempts) byPath.set(`${a.run.id} ${a.path}`, [...(byPath.get(`${a.run.id} ${a.path}`) ?? []), a]);
  let reruns = 0;
  for (const [key, list] of byPath) {
    for (let i = 1; i < list.length; i++) {
      reruns++;
      const previous = list[i - 1]!;
      const below = attempts.filter((a) => a.run === previous.run && isBelow(a.path, previous.path) && a.start.at <= list[i]!.start.at);
      const hit = [previous, ...below].some((a) => input.kills.some((k) => inFlightAt(a, k)));
      if (!hit) unexplained.push(`${key}: attempt ${i + 1} with no kill during attempt ${i}`);
    }
  }
  return {
    id: 'reruns-explained', name: 're-runs only of nodes in flight at a kill', ok: unexplained.length === 0,
    detail: unexplained.length === 0 ? `${reruns} re-runs, each of an attempt in flight at a kill` : list(unexplained),
    next: 'the node_started / node_failed events of the paths named, against the kill times in --json',
  };
}

function checkKillsInterrupt(input: CheckInput): CheckResult {
  const failures = input.runs.flatMap((run) =>
    run.events.filter((e) => e.type === 'node_failed' && !e.interrupted).map((e) => `${run.id} ${e.path}: ${(e.error ?? 'failed').slice(0, 160)}`),
  );
  const resumed = input.resumes.map((r) => `resumed ${r.runId}: ${(r.error ?? 'failed').slice(0, 160)}`);
  const bad = [...failures, ...resumed];
  return {
    id: 'kills-interrupt',
    name: input.diskFulls === undefined ? 'a kill only interrupts: no node or run failed' : 'a kill or a full disk only delays: no node or run failed',
    ok: bad.length === 0,
    detail: bad.length === 0 ? 'every attempt cut by a kill was recorded interrupted and ran again by itself' : list(bad),
    next: 'the node_failed errors named: a kill should be recorded interrupted, and the node run again without a resume',
  };
}

function checkGapless(input: CheckInput): CheckResult {
  const problems: string[] = [];
  for (const run of input.runs) {
    const seqs = run.events.map((e) => e.seq);
    if (seqs.some((s, i) => i > 0 && s <= seqs[i - 1]!)) problems.push(`${run.id}: seqs not strictly increasing`);
    // A run is announced when it is queued (a history from before that starts at once), then started.
    const opening = run.events[0]?.type === 'workflow_queued' ? run.events[1] : run.events[0];
    if (opening?.type !== 'workflow_started') problems.push(`${run.id}: first event is ${opening?.type ?? 'missing'}`);
    const last = run.events.at(-1)?.type;
    if (run.status === 'completed' && last !== 'workflow_completed') problems.push(`${run.id}: last event is ${last}, not workflow_completed`);
  }
  if (input.wholeLog) {
    const all = input.runs.flatMap((r) => r.events.map((e) => e.seq)).sort((a, b) => a - b);
    const holes: string[] = [];
    for (let i = 1; i < all.length; i++) {
      if (all[i] !== all[i - 1]! + 1) holes.push(all[i] === all[i - 1] ? `seq ${all[i]} twice` : `${all[i - 1]} then ${all[i]}`);
    }
    if (all.length > 0 && all[0] !== 1) problems.push(`the log starts at seq ${all[0]}`);
    if (holes.length > 0) problems.push(`the server's log has holes: ${holes.slice(0, 3).join(', ')}`);
  }
  return {
    id: 'events-gapless', name: 'event sequences gapless per run', ok: problems.length === 0,
    detail: problems.length === 0 ? (input.wholeLog ? 'each run ordered, start to end; the whole log 1..N with no hole' : 'each run ordered, start to end') : list(problems),
    next: 'GET /api/workflows/runs/<id> of the runs named: a hole is an event lost or a transaction torn',
  };
}

function checkOrphans(input: CheckInput): CheckResult {
  if (input.orphans === undefined) return { id: 'no-orphans', name: 'no process left after the server stopped', ok: null, detail: 'not checked: --url (not our server)' };
  const left = input.orphans.map((o) => `pid ${o.pid} ${o.comm} (home in its ${o.where})`);
  return {
    id: 'no-orphans', name: 'no process left after the server stopped', ok: left.length === 0,
    detail: left.length === 0 ? 'none carries the scratch home' : list(left),
    next: 'the processes named (they were killed after this check): which node or helper started them',
  };
}

function checkNoCrash(input: CheckInput): CheckResult {
  const name = 'no server process died of an uncaught error';
  if (input.serverCrashes === undefined) return { id: 'no-crash', name, ok: null, detail: 'not checked: --url (not our server)' };
  return {
    id: 'no-crash', name, ok: input.serverCrashes === 0,
    detail: input.serverCrashes === 0 ? 'none in the server log' : `${input.serverCrashes} uncaught error(s) in the server log`,
    next: 'the stack traces in the server log (stress-server.log in the scratch home)',
  };
}

function checkKillsLanded(input: CheckInput): CheckResult {
  const missed = input.kills.filter((k) => !k.landed).map((k) => `kill ${k.index + 1} (${k.kind}): ${k.note ?? 'did not land'}`);
  const landed = input.kills.length - missed.length;
  const ok = missed.length === 0 && landed === input.killsAsked;
  return {
    id: 'kills-landed', name: 'every kill landed and the server came back', ok,
    detail: ok ? `${landed} of ${input.killsAsked}` : `${landed} of ${input.killsAsked}${missed.length ? `: ${list(missed)}` : ''}`,
    next: 'the server log (stress-server.log in the scratch home)',
  };
}

function checkDiskFullTold(input: CheckInput): CheckResult {
  const name = 'the server said the disk was full, and took writes once it had room';
  if (input.diskFulls === undefined) return { id: 'disk-full-told', name, ok: null, detail: 'not checked: no --disk-full' };
  const fulls = input.diskFulls;
  const bad = fulls.flatMap((f) => [
    ...(f.toldFullMs === null ? [`fill ${f.index + 1}: /health/db never said "Disk full"${f.walTruncated ? '' : ' (the WAL could not be truncated first)'}`] : []),
    ...(f.recoveredMs === null ? [`fill ${f.index + 1}: /health/db still failing after the space came back`] : []),
  ]);
  const slowest = (pick: (f: DiskFullRecord) => number | null) => Math.max(0, ...fulls.map((f) => pick(f) ?? 0)) / 1000;
  return {
    id: 'disk-full-told', name, ok: bad.length === 0 && fulls.length > 0,
    detail: fulls.length === 0 ? 'no fill happened' : bad.length > 0 ? list(bad)
      : `${fulls.length} fill(s): "Disk full" within ${slowest((f) => f.toldFullMs).toFixed(1)} s, writes again within ${slowest((f) => f.recoveredMs).toFixed(1)} s of the space coming back`,
    next: 'GET /health/db while the disk is full, and the server log (stress-server.log in the scratch home)',
  };
}

function checkDatabaseSound(input: CheckInput): CheckResult {
  const name = 'the database passed integrity_check';
  if (input.databaseIntegrity === undefined) return { id: 'database-sound', name, ok: null, detail: 'not checked: --url (not our server)' };
  const ok = input.databaseIntegrity === 'ok';
  return {
    id: 'database-sound', name, ok,
    detail: ok ? 'ok, once the server stopped' : input.databaseIntegrity.slice(0, 300),
    next: 'the database in the scratch home (db/cairn.sqlite): PRAGMA integrity_check names the damaged pages',
  };
}

/** Runs every check over the history; the counts are what the report prints beside them. */
export function runChecks(input: CheckInput): { checks: CheckResult[]; counts: StressCounts } {
  const attempts = input.runs.flatMap(attemptsOf);
  const firsts = new Set(attempts.map((a) => `${a.run.id} ${a.path}`));
  const events = input.runs.flatMap((r) => r.events);
  const checks = [
    checkRunsCompleted(input), checkSuccessOnce(input), checkReruns(input, attempts), checkKillsInterrupt(input),
    checkGapless(input), checkOrphans(input), checkNoCrash(input), checkKillsLanded(input), checkDiskFullTold(input),
    checkDatabaseSound(input),
  ];
  const counts: StressCounts = {
    runs: input.startedRunIds.length,
    childRuns: input.runs.filter((r) => r.parentId !== null).length,
    nodesCompleted: events.filter((e) => e.type === 'node_completed').length,
    attempts: attempts.length,
    reruns: attempts.length - firsts.size,
    inFlightAtKills: attempts.filter((a) => input.kills.some((k) => inFlightAt(a, k))).length,
    interruptedAttempts: events.filter((e) => e.type === 'node_failed' && e.interrupted).length,
    failedAttempts: events.filter((e) => e.type === 'node_failed' && !e.interrupted).length,
    resumes: input.resumes.length,
    killsLanded: input.kills.filter((k) => k.landed).length,
  };
  return { checks, counts };
}
