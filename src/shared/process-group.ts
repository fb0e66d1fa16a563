import { readdirSync, readFileSync } from 'node:fs';
import { CairnError } from './errors.js';

/**
 * Killing a node's whole process group and confirming that it is gone. Shared by the worker
 * (cancel, timeout) and the supervisor side (a worker that stopped answering, a take-over of an
 * orphaned attempt). Also the one check of whether a single pid is alive (launcher, supervisor).
 */

export interface KillProcessGroupOptions {
  /** Time between the first signal and SIGKILL. */
  graceMs: number;
  /** The first signal; SIGTERM unless told. SIGKILL skips the grace period. */
  signal?: NodeJS.Signals;
  /** How long to wait for the group to disappear after SIGKILL before giving up with an error. */
  confirmTimeoutMs?: number;
}

const DEFAULT_CONFIRM_TIMEOUT_MS = 10_000;
/** First poll interval; doubles up to the maximum. Most groups are gone within a few ms. */
const FIRST_POLL_MS = 2;
const MAX_POLL_MS = 50;

const isLinux = process.platform === 'linux';

/**
 * True when a process with this pid exists on this host: the one "is this pid alive" check
 * (a launcher's server file, a supervisor's heartbeat). EPERM means it exists but belongs to
 * someone else. A zombie counts as alive until its parent reaps it; for a node's process group,
 * where that matters, use `isProcessGroupAlive`.
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Sends `signal` (SIGTERM) to the group, SIGKILL after `graceMs` if members remain, and
 * resolves only once no live member is left. Rejects (INTERNAL) if members survive SIGKILL for
 * `confirmTimeoutMs` (a process stuck in uninterruptible sleep).
 */
export async function killProcessGroup(pgid: number, opts: KillProcessGroupOptions): Promise<void> {
  assertGroupId(pgid);
  const first = opts.signal ?? 'SIGTERM';
  if (!signalGroup(pgid, first)) {
    if (!isProcessGroupAlive(pgid)) return killUnsettledLeader(pgid);
    // The group appeared between the two looks (a fresh fork called setsid just then): it has
    // had no signal yet. Found by `cairn stress --disk-full`, where a refused start kills the
    // gated child within microseconds of its fork.
    signalGroup(pgid, first);
  }
  if (first !== 'SIGKILL') {
    if (await waitUntilGone(pgid, opts.graceMs)) return;
    signalGroup(pgid, 'SIGKILL');
  }
  const confirmMs = opts.confirmTimeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS;
  if (await waitUntilGone(pgid, confirmMs)) return;
  throw new CairnError(
    'INTERNAL',
    `process group ${pgid} still has live members ${confirmMs} ms after SIGKILL`,
    { pgid, members: liveGroupMembers(pgid) },
  );
}

/**
 * No group has this id yet, but the process may exist: a child forked a moment ago that has not
 * yet called setsid (on a loaded machine it may not have been scheduled at all). It has not
 * exec'd either, so it has no descendants: SIGKILL it alone, or it would make its group and run.
 */
async function killUnsettledLeader(pid: number): Promise<void> {
  if (!isLiveProcess(pid)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return; // gone meanwhile
  }
  for (let interval = FIRST_POLL_MS; isLiveProcess(pid); interval = Math.min(interval * 2, MAX_POLL_MS)) {
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

/** A process that exists and is not a zombie (where that can be told). */
function isLiveProcess(pid: number): boolean {
  if (!isProcessAlive(pid)) return false;
  if (!isLinux) return true;
  const stat = readStat(String(pid));
  return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X';
}

/**
 * True while the group has a member that is not a zombie. `kill(-pgid, 0)` alone is not
 * enough: a zombie keeps its group id until it is reaped, and a container's PID 1 may never
 * reap the grandchildren it inherits, so a dead group would look alive forever.
 */
export function isProcessGroupAlive(pgid: number): boolean {
  assertGroupId(pgid);
  // ESRCH means no member at all, zombies included: the cheap, common answer.
  if (!groupExists(pgid)) return false;
  if (!isLinux) return true;
  return liveGroupMembers(pgid).length > 0;
}

/** Pids of the group's members that are not zombies (Linux: from /proc). */
export function liveGroupMembers(pgid: number): number[] {
  if (!isLinux) return groupExists(pgid) ? [pgid] : [];
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const first = entry.charCodeAt(0);
    if (first < 48 || first > 57) continue; // not a pid directory
    const stat = readStat(entry);
    if (stat && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X') {
      members.push(Number(entry));
    }
  }
  return members;
}

function readStat(pid: string): { state: string; pgrp: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined; // exited between readdir and read
  }
  // `pid (comm) state ppid pgrp ...`; comm may itself contain spaces and parentheses.
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' ', 3);
  const state = fields[0];
  const pgrp = Number(fields[2]);
  if (state === undefined || !Number.isInteger(pgrp)) return undefined;
  return { state, pgrp };
}

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    // EPERM: the group exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Returns false when the group has no member left to signal (ESRCH). */
function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw new CairnError('INTERNAL', `cannot signal process group ${pgid}: ${(err as Error).message}`, undefined, {
      cause: err,
    });
  }
}

async function waitUntilGone(pgid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  let interval = FIRST_POLL_MS;
  for (;;) {
    if (!isProcessGroupAlive(pgid)) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.min(interval, left)));
    interval = Math.min(interval * 2, MAX_POLL_MS);
  }
}

function assertGroupId(pgid: number): void {
  // 0 and 1 would address our own group or every process we may signal: never a node's group.
  if (!Number.isInteger(pgid) || pgid <= 1) {
    throw new CairnError('INTERNAL', `refusing to signal process group ${pgid}: not a child's group id`);
  }
}

/** Linux reports process start times in clock ticks of USER_HZ, which is 100 on every platform it runs on. */
const USER_HZ = 100;

/**
 * False when the process with id `pgid` started after `notAfter` (ms since the epoch): the
 * group id then names some other program that reused the number, for example after a reboot,
 * and must not be killed. True when it started before, or when that cannot be told (not
 * Linux, or the process is gone).
 */
export function startedNoLaterThan(pgid: number, notAfter: number): boolean {
  if (!isLinux) return true;
  try {
    const bootSeconds = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'latin1'))?.[1]);
    const text = readFileSync(`/proc/${pgid}/stat`, 'latin1');
    // Fields after `pid (comm) `: state is 1st, starttime the 20th.
    const startTicks = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[19]);
    if (!Number.isFinite(bootSeconds) || !Number.isFinite(startTicks)) return true;
    const startedAt = bootSeconds * 1000 + (startTicks * 1000) / USER_HZ;
    // btime has a resolution of one second.
    return startedAt <= notAfter + 1000;
  } catch {
    return true;
  }
}
