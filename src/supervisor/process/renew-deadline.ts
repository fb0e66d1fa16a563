import { CairnError } from '../../shared/errors.js';

/**
 * Self-fencing's arithmetic (Kubernetes leader election's renew deadline, Chubby's local lease):
 * a supervisor that has not renewed its hold for the renew deadline ends its nodes itself, early
 * enough that their processes are gone before another host may take its runs over.
 *
 * Another host takes a run over when its lease has run out or its owner's heartbeat is stale
 * (liveness.ts), whichever comes first, counted from the owner's last renewal. Ending a node's
 * process group takes up to its kill grace (SIGTERM, then SIGKILL). The margin covers what is
 * left: the watchdog's cadence, a busy event loop, clocks a little apart between hosts.
 */

/** Room beyond the kill grace: the watchdog's cadence, event-loop delay, clock skew between hosts. */
export const FENCE_MARGIN_MS = 1_000;

export interface RenewDeadlineInput {
  /** The run lease (CAIRN_RUN_LEASE_MS). */
  leaseMs: number;
  /** How old a heartbeat is when other supervisors count its owner gone (HEARTBEAT_STALE_MS). */
  heartbeatStaleMs: number;
  /** How long ending a node's process group may take (SIGTERM, then SIGKILL after it). */
  killGraceMs: number;
  /** How often the heartbeat renews: a deadline must leave room for at least two renewals. */
  heartbeatMs: number;
  marginMs?: number;
}

/**
 * The renew deadline in ms: past it without a renewal, a supervisor fences itself. Refuses
 * (CONFIG_INVALID, naming the lease to set) timings that leave no room for two renewals, since a
 * supervisor would then fence itself over one slow write.
 */
export function renewDeadlineMs(input: RenewDeadlineInput): number {
  const margin = input.marginMs ?? FENCE_MARGIN_MS;
  const takeoverAfterMs = Math.min(input.leaseMs, input.heartbeatStaleMs);
  const deadline = takeoverAfterMs - input.killGraceMs - margin;
  const least = 2 * input.heartbeatMs;
  if (deadline < least) {
    const leaseNeeded = least + input.killGraceMs + margin;
    throw new CairnError(
      'CONFIG_INVALID',
      `CAIRN_RUN_LEASE_MS=${input.leaseMs} is too short for a supervisor on a shared database: cut off from it, the ` +
        `supervisor must end its nodes (${input.killGraceMs} ms to end their processes, plus ${margin} ms) before ` +
        `another host may take its runs over, after at least two missed renewals (${least} ms). Set it to at least ${leaseNeeded}.`,
    );
  }
  return deadline;
}

export type FenceVerdict = 'renewed' | 'fence';

/**
 * Whether a supervisor must fence itself now. `lastRenewedAt` is when its last successful
 * renewal was sent (not answered): the lease it set runs from then at the earliest.
 */
export function fenceVerdict(input: { now: number; lastRenewedAt: number; deadlineMs: number }): FenceVerdict {
  return input.now - input.lastRenewedAt > input.deadlineMs ? 'fence' : 'renewed';
}
