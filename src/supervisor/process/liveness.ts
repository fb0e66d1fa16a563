import { hostname } from 'node:os';
import type { Run } from '../../store/schemas/run.js';
import type { SupervisorHeartbeat } from '../../store/schemas/heartbeat.js';

/** A heartbeat older than this means its supervisor is gone, whatever its leases say. */
export const HEARTBEAT_STALE_MS = 10_000;

/** When and where liveness is judged; `isAlive` is injectable for tests. */
export interface LivenessContext {
  now: number;
  hostname: string;
  isAlive?: (pid: number) => boolean;
}

/** The context for a judgement made here, now. */
export function livenessHere(): LivenessContext {
  return { now: Date.now(), hostname: hostname() };
}

/** True when `pid` names a live process on this host. */
export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Decides from its heartbeat row whether a supervisor is gone: it said it stopped, its heartbeat
 * is stale, or it ran on this host under a pid that no longer exists (the common case: the
 * launcher restarting a supervisor that was killed).
 */
export function isSupervisorGone(beat: SupervisorHeartbeat, ctx: LivenessContext): boolean {
  if (beat.state === 'stopped') return true;
  if (ctx.now - Date.parse(beat.heartbeat_at) > HEARTBEAT_STALE_MS) return true;
  return beat.hostname === ctx.hostname && !(ctx.isAlive ?? isPidAlive)(beat.pid);
}

/**
 * Decides whether the owner of a `running` run is gone, so the run may be taken over now
 * rather than when its lease expires: no owner at all (released at shutdown), an expired lease,
 * or an owner whose heartbeat says it is gone (see isSupervisorGone).
 */
export function isOwnerGone(
  run: Pick<Run, 'owner_id' | 'lease_expires_at'>,
  heartbeats: ReadonlyMap<string, SupervisorHeartbeat>,
  ctx: LivenessContext,
): boolean {
  if (!run.owner_id) return true;
  if (!run.lease_expires_at || Date.parse(run.lease_expires_at) < ctx.now) return true;
  const beat = heartbeats.get(run.owner_id);
  if (!beat) return false; // a lease without a heartbeat row: trust the lease
  return isSupervisorGone(beat, ctx);
}

/**
 * Ids of the supervisors, other than `selfId`, whose heartbeat says they are gone: the jobs they
 * still hold are given back to the queue at once. A job whose owner has no heartbeat row waits
 * for its lease.
 */
export function goneSupervisors(heartbeats: Iterable<SupervisorHeartbeat>, selfId: string, ctx: LivenessContext): string[] {
  const gone: string[] = [];
  for (const beat of heartbeats) if (beat.id !== selfId && isSupervisorGone(beat, ctx)) gone.push(beat.id);
  return gone;
}
