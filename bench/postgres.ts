import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, postgresStoreConfig, sqliteStoreConfig, type Store } from '../src/store/open-store.js';
import { startPostgresCluster, type PostgresCluster } from '../test/helpers/postgres-cluster.js';
import { startRole } from '../test/helpers/serve-role.js';
import { newRun } from '../test/store/fixtures.js';
import { makeTempHome } from '../test/helpers/temp-home.js';
import { fanOutYaml } from '../test/helpers/workflows.js';
import { addWorkflow, openSession, percentile, startTimedRun } from './session.js';

/**
 * `npm run bench -- pg`: the PostgreSQL store against the embedded SQLite one, on this machine
 * (issue 28's bars): trivial jobs claimed and finished per second, the time from a job's enqueue
 * to its claim by a store woken by change notification (LISTEN/NOTIFY on PostgreSQL, the WAL
 * watch on SQLite), and bash `true` nodes per second through real servers with 1, 2 and 3
 * supervisors. The cluster is the tests' own (test/helpers/postgres-cluster.ts): local, with
 * fsync off, so it shows the engine's cost, not a disk's.
 */

type Backend = 'sqlite' | 'postgres';

export interface ClaimRow {
  backend: Backend;
  claimers: number;
  jobs: number;
  perSec: number;
}

export interface LatencyRow {
  backend: Backend;
  samples: number;
  p50: number;
  p95: number;
  p99: number;
}

export interface NodesRow {
  backend: Backend;
  supervisors: number;
  nodes: number;
  nodesPerSec: number;
}

export interface PgBench {
  claims: ClaimRow[];
  latency: LatencyRow[];
  nodes: NodesRow[];
}

const KEY = 'ab'.repeat(32);

async function withStores<T>(backend: Backend, cluster: PostgresCluster, name: string, count: number, fn: (stores: Store[]) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-pg-'));
  const config = backend === 'postgres' ? postgresStoreConfig(await cluster.createDatabase(name)) : sqliteStoreConfig(join(dir, 'cairn.sqlite'));
  const stores = Array.from({ length: count }, () => openStore(config));
  try {
    return await fn(stores);
  } finally {
    for (const s of stores) await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `jobs` trivial jobs queued, then claimed and finished by `claimers` stores at once. */
async function claimCycles(backend: Backend, cluster: PostgresCluster, claimers: number, jobs = 2000): Promise<ClaimRow> {
  return withStores(backend, cluster, `claims_${claimers}`, claimers + 1, async ([queue, ...workers]) => {
    const run = await queue!.createRun(newRun());
    for (let i = 0; i < jobs; i++) await queue!.enqueueJob('workflow_result', run.id, { i });
    // The run's own start_run job is claimed too: it is one more trivial cycle.
    const t0 = performance.now();
    let done = 0;
    await Promise.all(
      workers.map(async (store, w) => {
        for (;;) {
          const job = await store.claimJob(`bench-${w}`, 60_000);
          if (!job) return;
          await store.finishJob(job.id, `bench-${w}`, 'done');
          done += 1;
        }
      }),
    );
    return { backend, claimers, jobs: done, perSec: done / ((performance.now() - t0) / 1000) };
  });
}

/** A job queued every 20 ms by one store, claimed by another as soon as a change wakes it. */
async function enqueueToClaim(backend: Backend, cluster: PostgresCluster, samples = 200): Promise<LatencyRow> {
  return withStores(backend, cluster, 'latency', 2, async ([queue, worker]) => {
    const run = await queue!.createRun(newRun());
    while (await worker!.claimJob('bench', 60_000)) {
      // drain the run's start_run job
    }
    const queuedAt = new Map<number, number>();
    const waits: number[] = [];
    let current: Promise<void> | undefined;
    let again = false;
    // One claim loop at a time; a change during it makes it look once more.
    const claimAll = (): Promise<void> => {
      if (current) return (again = true), current;
      current = (async () => {
        do {
          again = false;
          for (let job = await worker!.claimJob('bench', 60_000); job; job = await worker!.claimJob('bench', 60_000)) {
            const at = queuedAt.get(Number(job.payload.i));
            if (at !== undefined) waits.push(performance.now() - at);
            await worker!.finishJob(job.id, 'bench', 'done');
          }
        } while (again);
      })().finally(() => (current = undefined));
      return current;
    };
    const stop = worker!.onChange(() => void claimAll());
    try {
      for (let i = 0; i < samples; i++) {
        // Noted before the enqueue: a claim may come before the enqueue's own answer.
        queuedAt.set(i, performance.now());
        await queue!.enqueueJob('workflow_result', run.id, { i });
        await new Promise((r) => setTimeout(r, 20));
      }
      const deadline = Date.now() + 30_000;
      while (waits.length < samples && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    } finally {
      stop();
      await current;
    }
    const sorted = [...waits].sort((a, b) => a - b);
    return { backend, samples: waits.length, p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99) };
  });
}

/**
 * `runs` runs of `perRun` parallel `true` nodes started at once on a real server (global limit
 * 8), with `supervisors` supervisors in all: the server's own and `--role supervisor` ones
 * sharing its workflows and workspaces. A run is driven by one supervisor, so several runs.
 */
async function nodesPerSecond(backend: Backend, cluster: PostgresCluster, supervisors: number, runs = 6, perRun = 250): Promise<NodesRow> {
  const env: Record<string, string> = { CAIRN_MAX_CONCURRENCY: '8', TOKEN_ENCRYPTION_KEY: KEY };
  if (backend === 'postgres') env.DATABASE_URL = await cluster.createDatabase(`nodes_${supervisors}`);
  const session = await openSession(env);
  try {
    await addWorkflow(session, 'wide', fanOutYaml('wide', perRun, 'true'));
    for (let i = 1; i < supervisors; i++) {
      const home = await makeTempHome();
      session.home.defer(() => home.close());
      mkdirSync(session.home.paths.workspaces, { recursive: true });
      symlinkSync(session.home.paths.workflows, home.paths.workflows);
      symlinkSync(session.home.paths.workspaces, home.paths.workspaces);
      await startRole(home, 'supervisor', env);
    }
    const warm = await startTimedRun(session, 'wide');
    await warm.finished();
    const t0 = performance.now();
    const started = [];
    for (let i = 0; i < runs; i++) started.push(await startTimedRun(session, 'wide'));
    const ends = await Promise.all(started.map((r) => r.finished()));
    if (ends.some((e) => e.status !== 'completed')) throw new Error(`a run ended ${ends.map((e) => e.status).join(', ')}`);
    return { backend, supervisors, nodes: runs * perRun, nodesPerSec: (runs * perRun) / ((performance.now() - t0) / 1000) };
  } finally {
    await session.close();
  }
}

export async function postgresBench(): Promise<PgBench> {
  const cluster = await startPostgresCluster();
  try {
    const claims: ClaimRow[] = [];
    const latency: LatencyRow[] = [];
    const nodes: NodesRow[] = [];
    for (const backend of ['sqlite', 'postgres'] as const) {
      for (const claimers of [1, 2]) claims.push(await claimCycles(backend, cluster, claimers));
      latency.push(await enqueueToClaim(backend, cluster));
    }
    nodes.push(await nodesPerSecond('sqlite', cluster, 1));
    for (const supervisors of [1, 2, 3]) nodes.push(await nodesPerSecond('postgres', cluster, supervisors));
    return { claims, latency, nodes };
  } finally {
    await cluster.stop();
  }
}

const f = (n: number, digits = 1) => n.toFixed(digits);

export function formatPostgresTable(r: PgBench): string {
  const out = ['## PostgreSQL against SQLite (`npm run bench -- pg`)\n'];
  out.push('| store | claimers at once | trivial jobs claimed and finished | per second |', '|---|---:|---:|---:|');
  for (const c of r.claims) out.push(`| ${c.backend} | ${c.claimers} | ${c.jobs} | ${f(c.perSec, 0)} |`);
  out.push('', '| store | enqueue → claim (woken by change notification), samples | p50 | p95 | p99 |', '|---|---:|---:|---:|---:|');
  for (const l of r.latency) out.push(`| ${l.backend} | ${l.samples} | ${f(l.p50)} ms | ${f(l.p95)} ms | ${f(l.p99)} ms |`);
  out.push('', '| store | supervisors | `true` nodes (6 runs at once, global limit 8) | nodes per second |', '|---|---:|---:|---:|');
  for (const n of r.nodes) out.push(`| ${n.backend} | ${n.supervisors} | ${n.nodes} | ${f(n.nodesPerSec, 0)} |`);
  return `${out.join('\n')}\n`;
}
