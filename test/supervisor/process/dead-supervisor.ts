import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { HEARTBEAT_STALE_MS } from '../../../src/supervisor/process/liveness.js';
import type { Store } from '../../../src/store/store.js';

/** A pid that certainly names no live process: a child that has exited. */
export async function deadPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

/**
 * The heartbeat row a supervisor killed with -9 leaves behind: fresh, on this host, `running`,
 * naming a process that no longer exists.
 */
export async function writeDeadHeartbeat(store: Store, id: string): Promise<void> {
  const now = new Date().toISOString();
  await store.writeHeartbeat({
    id, pid: await deadPid(), hostname: hostname(), started_at: now, heartbeat_at: now, state: 'running',
    concurrency: { limit: 1, perRunLimit: 1, active: 1, queued: 0, runs: 1, perProvider: {} },
  });
}

/**
 * The heartbeat of a supervisor killed -9 once it has gone stale (older than HEARTBEAT_STALE_MS):
 * for one that ran in this test's process, whose pid (kept from its first heartbeat) is alive.
 */
export async function writeStaleHeartbeat(store: Store, id: string): Promise<void> {
  const last = new Date(Date.now() - HEARTBEAT_STALE_MS - 1_000).toISOString();
  await store.writeHeartbeat({
    id, pid: process.pid, hostname: hostname(), started_at: last, heartbeat_at: last, state: 'running',
    concurrency: { limit: 1, perRunLimit: 1, active: 1, queued: 0, runs: 1, perProvider: {} },
  });
}
