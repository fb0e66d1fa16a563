import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * What `cairn stress` knows of processes, read from Linux's /proc: the server's tree found
 * through parent links from the launcher it started, memory, and processes left behind.
 */

export interface ProcessInfo {
  pid: number;
  ppid: number;
  comm: string;
  state: string;
}

/** The server's processes: the launcher, its API and supervisor children, the supervisor's spawn helpers. */
export interface ServerTree {
  launcher: number;
  api: number | undefined;
  supervisor: number | undefined;
  helpers: number[];
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return undefined; // gone, or not ours to read
  }
}

/** One process's `stat` line, or undefined once it is gone. */
export function readProcess(pid: number): ProcessInfo | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  // `pid (comm) state ppid ...`; comm may itself contain spaces and parentheses.
  const close = stat.lastIndexOf(')');
  const [state = '', ppid = '0'] = stat.slice(close + 2).split(' ', 2);
  return { pid, ppid: Number(ppid), comm: stat.slice(stat.indexOf('(') + 1, close), state };
}

/** Every live (not zombie) process on the machine. */
export function listProcesses(): ProcessInfo[] {
  const found: ProcessInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const info = readProcess(Number(entry));
    if (info && info.state !== 'Z' && info.state !== 'X') found.push(info);
  }
  return found;
}

/** True while `pid` exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  const info = readProcess(pid);
  return info !== undefined && info.state !== 'Z' && info.state !== 'X';
}

/** A process's command line, its arguments joined by spaces. */
export function commandLine(pid: number): string {
  return (readText(`/proc/${pid}/cmdline`) ?? '').split('\0').filter(Boolean).join(' ');
}

/** The launcher's tree: API and supervisor told apart by their entry files, helpers by being perl. */
export function findServerTree(launcherPid: number, all: readonly ProcessInfo[] = listProcesses()): ServerTree {
  const children = all.filter((p) => p.ppid === launcherPid);
  const byEntry = (entry: RegExp) => children.find((p) => entry.test(commandLine(p.pid)))?.pid;
  const api = byEntry(/[/\\]api[/\\]main\.js\b/);
  const supervisor = byEntry(/[/\\]supervisor[/\\]process[/\\]main\.js\b/);
  const helpers = supervisor === undefined ? [] : all.filter((p) => p.ppid === supervisor && p.comm === 'perl').map((p) => p.pid);
  return { launcher: launcherPid, api, supervisor, helpers };
}

/** Resident memory of a process in KiB (`VmRSS`), 0 once it is gone. */
export function residentKiB(pid: number): number {
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readText(`/proc/${pid}/status`) ?? '');
  return match ? Number(match[1]) : 0;
}

/** Resident memory of the server's processes (launcher, API, supervisor, helpers) in KiB. */
export function serverResidentKiB(tree: ServerTree): number {
  const pids = [tree.launcher, tree.api, tree.supervisor, ...tree.helpers].filter((p): p is number => p !== undefined);
  return pids.reduce((sum, pid) => sum + residentKiB(pid), 0);
}

/**
 * Live processes, other than this one, whose environment, command line or working directory
 * names `marker` (the scratch home): what a stopped server must not leave behind.
 */
export function processesCarrying(marker: string): { pid: number; comm: string; where: string }[] {
  const found: { pid: number; comm: string; where: string }[] = [];
  for (const proc of listProcesses()) {
    if (proc.pid === process.pid) continue;
    const environ = readText(`/proc/${proc.pid}/environ`) ?? '';
    let cwd = '';
    try {
      cwd = readlinkSync(`/proc/${proc.pid}/cwd`);
    } catch {
      // gone, or not ours
    }
    const where = environ.includes(marker) ? 'environment' : commandLine(proc.pid).includes(marker) ? 'command line' : cwd.startsWith(marker) ? 'working directory' : undefined;
    if (where) found.push({ pid: proc.pid, comm: proc.comm, where });
  }
  return found;
}
