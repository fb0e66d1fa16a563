import { hostname } from 'node:os';
import type { HeartbeatRow } from '../store/copy/copy-sqlite-to-postgres.js';

/**
 * A heartbeat younger than this is a supervisor still running (the supervisor's own rule,
 * supervisor/process/liveness.ts, which the CLI's tools may not import).
 */
export const HEARTBEAT_FRESH_MS = 10_000;

function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether a heartbeat row belongs to a supervisor that still runs: it did not say it stopped,
 * it beat within the last 10 s, and, when it ran on this host, its pid is alive. A supervisor
 * killed a moment ago on this host is gone at once; one on another host after 10 s.
 */
export function isLiveSupervisor(beat: HeartbeatRow, now = Date.now(), host = hostname()): boolean {
  if (beat.state === 'stopped') return false;
  if (now - Date.parse(beat.heartbeat_at) > HEARTBEAT_FRESH_MS) return false;
  return beat.hostname !== host || isPidAlive(beat.pid);
}
