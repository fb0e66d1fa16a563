import type { LaunchError } from './child-launcher.js';

/** When a launcher stops starting spawn helpers for a while. */
export interface HelperRestartLimit {
  /** Helpers in a row that died before answering their first request. */
  maxEarlyDeaths: number;
  /** Past that, how long no new helper is started; then one more is tried. */
  pauseMs: number;
}

/**
 * Five helpers in a row that died before answering anything, then a 10 s pause. A helper is
 * started for a request and answers it within milliseconds, so one that dies first cannot run
 * (perl missing or broken, killed at once for want of memory), and starting more would only
 * fail the same way. A helper killed after it worked (a `kill -9` from outside, a node killing
 * its parent) is not counted: the attempts it ran are interrupted and run again, and a node that
 * keeps killing its helper is stopped by MAX_HELPER_LOSSES instead.
 */
export const DEFAULT_HELPER_RESTART_LIMIT: HelperRestartLimit = { maxEarlyDeaths: 5, pauseMs: 10_000 };

/** The recent deaths of one launcher's spawn helpers, and whether another may be started. */
export class HelperDeaths {
  private earlyInRow = 0;
  private lastAt = 0;
  private lastHow = '';

  constructor(
    private readonly limit: HelperRestartLimit = DEFAULT_HELPER_RESTART_LIMIT,
    private readonly now: () => number = Date.now,
  ) {}

  /** A helper died; `how` says which and how (`pid 12 exited with code 2`); `answered`: it had answered a request. */
  note(how: string, answered: boolean): void {
    this.earlyInRow = answered ? 0 : this.earlyInRow + 1;
    this.lastAt = this.now();
    this.lastHow = how;
  }

  /** Why no helper may be started now, or undefined when one may. */
  refusal(): LaunchError | undefined {
    if (this.earlyInRow < this.limit.maxEarlyDeaths) return undefined;
    const leftMs = this.lastAt + this.limit.pauseMs - this.now();
    if (leftMs <= 0) return undefined;
    return {
      unavailable: true,
      message:
        `the spawn helper (the perl process that starts node processes) died ${this.earlyInRow} times in a row before ` +
        `it could start anything (last: ${this.lastHow}), so it is not started again for ${Math.ceil(leftMs / 1000)} s. ` +
        `perl may be missing or broken (try \`perl -e 1\`), or something kills it at once (the kernel's OOM killer: ` +
        `see \`dmesg\`). Fix that, then resume the run; or set CAIRN_EXEC_SPAWNER=direct and restart the server to ` +
        `start nodes with Node's own spawn.`,
    };
  }
}
