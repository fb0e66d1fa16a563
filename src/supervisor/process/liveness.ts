import type { Run } from '../../store/schemas/run.js';
import type { SupervisorHeartbeat } from '../../store/schemas/heartbeat.js';

/** A heartbeat older than this means its supervisor is gone, whatever its leases say. */
export const HEARTBEAT_STALE_MS = 10_000;

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
 * Decides whether the owner of a `running` run is gone, so the run may be taken over now
 * rather than when its lease expires: no owner at all (released at shutdown), an expired lease,
 * a stale heartbeat, or a heartbeat on this host naming a process that no longer exists (the
 * common case: the launcher restarting a supervisor that was killed).
 */
export function isOwnerGone(
  run: Pick<Run, 'owner_id' | 'lease_expires_at'>,
  heartbeats: ReadonlyMap<string, SupervisorHeartbeat>,
  ctx: { now: number; hostname: string; isAlive?: (pid: number) => boolean },
): boolean {
  if (!run.owner_id) return true;
  if (!run.lease_expires_at || Date.parse(run.lease_expires_at) < ctx.now) return true;
  const beat = heartbeats.get(run.owner_id);
  if (!beat) return false; // a lease without a heartbeat row: trust the lease
  if (beat.state === 'stopped') return true;
  if (ctx.now - Date.parse(beat.heartbeat_at) > HEARTBEAT_STALE_MS) return true;
  return beat.hostname === ctx.hostname && !(ctx.isAlive ?? isPidAlive)(beat.pid);
}
