import { readdir, readFile } from 'node:fs/promises';

/** The processes whose parent is `pid`, with their command names (Linux: from /proc). */
export async function childrenOf(pid: number): Promise<{ pid: number; comm: string }[]> {
  const found: { pid: number; comm: string }[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'latin1').catch(() => '');
    // `pid (comm) state ppid ...`; comm may itself contain spaces and parentheses.
    const close = stat.lastIndexOf(')');
    if (close < 0) continue;
    const ppid = Number(stat.slice(close + 2).split(' ')[1]);
    if (ppid === pid) found.push({ pid: Number(entry), comm: stat.slice(stat.indexOf('(') + 1, close) });
  }
  return found;
}
