import type { OwnServer } from './own-server.js';
import { waitGone } from './own-server.js';
import type { ServerTree } from './process-tree.js';
import type { SeededRandom } from './seeded-random.js';
import type { StressClient } from './stress-client.js';
import { killKinds, type KillChoice, type KillKind, type KillRecord } from './kill-record.js';

/**
 * One SIGKILL at a seeded moment: wait until nodes are in flight (or a while has passed), wait a
 * seeded few hundred ms more, kill the chosen process of the server's tree, and wait until the
 * server is whole again (after a launcher kill: its children gone, then `cairn serve` started
 * again on the same home and port, so recovery must pick the runs up).
 */

const IN_FLIGHT_WITHIN_MS = 5_000;
const IDLE_BEFORE_MORE_MS = 500;
const HELPER_WITHIN_MS = 10_000;
const CHILDREN_GONE_WITHIN_MS = 20_000;
const POLL_MS = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The pid to kill for `kind` now; `draw` (a seeded number in [0, 1)) picks among helpers. */
function targetOf(kind: KillKind, tree: ServerTree, draw: number): number | undefined {
  switch (kind) {
    case 'launcher':
      return tree.launcher;
    case 'api':
      return tree.api;
    case 'supervisor':
      return tree.supervisor;
    case 'helper':
      return tree.helpers[Math.floor(draw * tree.helpers.length)];
  }
}

/**
 * Waits until nodes are in flight; when none are for a while (the runs started so far have
 * ended), asks for more work (`startMore`: another run) once, so that a kill cuts something short.
 */
async function waitForInFlight(client: StressClient, startMore: (() => Promise<void>) | undefined): Promise<void> {
  const idleUntil = Date.now() + IDLE_BEFORE_MORE_MS;
  let deadline = Date.now() + IN_FLIGHT_WITHIN_MS;
  let asked = false;
  while (Date.now() < deadline) {
    const health = await client.health().catch(() => undefined);
    if ((health?.concurrency.active ?? 0) > 0) return;
    if (!asked && startMore && Date.now() >= idleUntil) {
      asked = true;
      await startMore();
      deadline = Date.now() + IN_FLIGHT_WITHIN_MS;
    }
    await sleep(POLL_MS);
  }
}

/**
 * The kind to kill now (`choice`, or for `random` a seeded pick of the four) and its pid. A spawn
 * helper lives only while its worker thread does: wait a while for one to be there. The seeded
 * draws do not depend on what is alive, so a seed always picks the same kinds.
 */
async function chooseTarget(choice: KillChoice, server: OwnServer, random: SeededRandom): Promise<{ kind: KillKind; pid: number | undefined }> {
  const kind = choice === 'random' ? random.pick(killKinds) : choice;
  const draw = random.next();
  const deadline = Date.now() + (kind === 'helper' ? HELPER_WITHIN_MS : 0);
  for (;;) {
    const pid = targetOf(kind, server.tree(), draw);
    if (pid !== undefined || Date.now() >= deadline) return { kind, pid };
    await sleep(POLL_MS);
  }
}

/** Waits until the server is whole again after `kind` (pid `pid`) was killed. */
async function recover(kind: KillKind, pid: number, before: ServerTree, server: OwnServer, client: StressClient): Promise<{ note?: string; effectUntilMs?: number }> {
  switch (kind) {
    case 'supervisor':
      await server.waitReady(client, { notSupervisor: pid });
      return {};
    case 'api':
      await server.waitReady(client, { notApi: pid });
      return {};
    case 'helper':
      await waitGone([pid], CHILDREN_GONE_WITHIN_MS);
      return {};
    case 'launcher': {
      const children = [before.api, before.supervisor, ...before.helpers].filter((p): p is number => p !== undefined);
      const left = await waitGone(children, CHILDREN_GONE_WITHIN_MS);
      const effectUntilMs = Date.now();
      await server.restart(client);
      return left.length > 0 ? { effectUntilMs, note: `pids ${left.join(', ')} still alive ${CHILDREN_GONE_WITHIN_MS / 1000} s after their launcher died` } : { effectUntilMs };
    }
  }
}

/** Carries out kill number `index`; throws when the server does not come back. */
export async function killOnce(opts: {
  index: number;
  choice: KillChoice;
  random: SeededRandom;
  server: OwnServer;
  client: StressClient;
  /** Starts another run when nothing is in flight. */
  startMore?: () => Promise<void>;
}): Promise<KillRecord> {
  await waitForInFlight(opts.client, opts.startMore);
  await sleep(opts.random.int(0, 400));
  const { kind, pid } = await chooseTarget(opts.choice, opts.server, opts.random);
  if (pid === undefined) {
    const now = Date.now();
    return { index: opts.index, kind, pid: 0, atMs: now, effectUntilMs: now, landed: false, note: `no ${kind} process was alive to kill` };
  }
  const before = opts.server.tree();
  const atMs = Date.now();
  try {
    process.kill(pid, 'SIGKILL');
  } catch (err) {
    return { index: opts.index, kind, pid, atMs, effectUntilMs: atMs, landed: false, note: `SIGKILL failed: ${(err as Error).message}` };
  }
  const { note, effectUntilMs } = await recover(kind, pid, before, opts.server, opts.client);
  return { index: opts.index, kind, pid, atMs, effectUntilMs: effectUntilMs ?? atMs, landed: true, recoveredMs: Date.now() - atMs, ...(note ? { note } : {}) };
}
