import type { Logger } from '../shared/log.js';
import { describeExit, type ManagedChild } from './managed-child.js';

export interface ChildrenStop {
  /** Resolves once every child has exited, with the problems to report (empty when clean). */
  finished: Promise<Error[]>;
  /** Escalates a draining stop to the forced path: `shutdown` without drain, then the deadline. */
  force(): void;
}

/**
 * Stops the launcher's children together. Without drain the deadline starts at once; whatever
 * is still running when it passes is SIGKILLed (and reported, so the launcher exits non-zero).
 * With drain there is no deadline until `force()`: in-flight nodes may take as long as they take.
 */
export function stopChildren(
  children: readonly ManagedChild[],
  opts: { drain: boolean; deadlineMs: number; log: Logger },
): ChildrenStop {
  const { log, deadlineMs } = opts;
  const killed: string[] = [];
  let deadline: NodeJS.Timeout | undefined;
  const armDeadline = () => {
    if (deadline) return;
    deadline = setTimeout(() => {
      for (const child of children) if (child.forceKill()) killed.push(child.name);
      if (killed.length) log.error({ children: killed, deadlineMs }, 'launcher.shutdown_forced');
    }, deadlineMs);
    deadline.unref();
  };

  log.info({ drain: opts.drain }, 'launcher.shutdown_started');
  const exits = children.map((child) => child.stop(opts.drain));
  if (!opts.drain) armDeadline();

  const finished = Promise.all(exits).then((results) => {
    clearTimeout(deadline);
    const problems: Error[] = [];
    results.forEach((exit, i) => {
      const name = children[i]?.name ?? 'child';
      if (exit && exit.code !== 0 && !killed.includes(name)) {
        problems.push(new Error(`The ${name} process exited with ${describeExit(exit)} while stopping.`));
      }
    });
    if (killed.length) {
      const verb = killed.length > 1 ? 'were' : 'was';
      problems.push(new Error(`The ${killed.join(' and ')} process did not stop within ${deadlineMs} ms and ${verb} killed.`));
    }
    return problems;
  });

  return {
    finished,
    force() {
      if (deadline) return;
      log.warn('launcher.drain_interrupted');
      for (const child of children) void child.stop(false);
      armDeadline();
    },
  };
}
