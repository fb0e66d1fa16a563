import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * How many files (sockets included) this process may have open: its soft RLIMIT_NOFILE. Node
 * raises the soft limit to the hard one as it starts (PlatformInit in src/node.cc), so this is
 * the most the process can get; what it can be told is only how much that is. Node has no
 * getrlimit: on Linux the kernel's report is read, elsewhere a shell child (which inherits the
 * limit) is asked. Undefined when neither says.
 */
export function readOpenFilesLimit(): number | undefined {
  try {
    return positive(/^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'latin1'))?.[1]);
  } catch {
    // Not Linux: ask a shell below.
  }
  try {
    return positive(execFileSync('/bin/sh', ['-c', 'ulimit -S -n'], { encoding: 'utf8', timeout: 5_000 }).trim());
  } catch {
    return undefined;
  }
}

function positive(text: string | undefined): number | undefined {
  const value = Number(text);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}
