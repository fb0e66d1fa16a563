import type { LaunchError } from './child-launcher.js';

/** How many times a spawn helper may die within a window before it is not started again. */
export interface HelperRestartLimit {
  maxDeaths: number;
  windowMs: number;
}

/**
 * Five deaths in ten seconds. A helper dies when something kills it (a `kill -9`, the OOM
 * killer) or a node kills its own parent; each death interrupts the attempts it was running,
 * which run again at once through a new helper. A helper that keeps dying would make that a
 * loop, so past this it is left dead until the window has room again, and launches fail with the
 * reason. A helper that cannot run at all dies five times within milliseconds; kills from outside
 * (a test harness, an operator) come seconds apart and stay under the limit. A node that kills its
 * helper each time is stopped sooner, by MAX_HELPER_LOSSES.
 */
export const DEFAULT_HELPER_RESTART_LIMIT: HelperRestartLimit = { maxDeaths: 5, windowMs: 10_000 };

/** The recent deaths of one launcher's spawn helpers, and whether another may be started. */
export class HelperDeaths {
  private readonly times: number[] = [];
  private lastHow = '';

  constructor(
    private readonly limit: HelperRestartLimit = DEFAULT_HELPER_RESTART_LIMIT,
    private readonly now: () => number = Date.now,
  ) {}

  /** A helper died; `how` says which and how (`pid 12 was killed by SIGKILL`). */
  note(how: string): void {
    this.times.push(this.now());
    this.lastHow = how;
    this.forgetOld();
  }

  /** Why no helper may be started now, or undefined when one may. */
  refusal(): LaunchError | undefined {
    this.forgetOld();
    if (this.times.length < this.limit.maxDeaths) return undefined;
    const seconds = Math.round(this.limit.windowMs / 1000);
    const retryInS = Math.max(1, Math.ceil((this.times[0]! + this.limit.windowMs - this.now()) / 1000));
    return {
      unavailable: true,
      message:
        `the spawn helper (the perl process that starts node processes) died ${this.times.length} time${this.times.length === 1 ? '' : 's'} within ${seconds} s ` +
        `(last: ${this.lastHow}), so it is not started again for ${retryInS} s. Something keeps killing it (the kernel's ` +
        `OOM killer: see \`dmesg\`; a process reaper; a node that kills its parent process) or perl is broken. ` +
        `Fix that, then resume the run; or set CAIRN_EXEC_SPAWNER=direct and restart the server to start nodes with Node's own spawn.`,
    };
  }

  private forgetOld(): void {
    const since = this.now() - this.limit.windowMs;
    while (this.times.length && this.times[0]! <= since) this.times.shift();
  }
}
