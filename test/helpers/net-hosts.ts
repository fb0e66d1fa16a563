import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Hosts for tests of several machines, on this one: each is a network namespace joined to this
 * one by a veth pair (its own address, reaching this side's address only), and a hostname of its
 * own (a UTS namespace), which is what a supervisor's id and its "same host?" check read. A
 * process started through `wrap` runs there, and so does everything it starts. Needs root (as CI
 * runs), `ip` (iproute2) and `unshare` (util-linux).
 */
export interface NetHost {
  /** Its hostname, e.g. `cairn-host-1`. */
  name: string;
  /** The address of this side of its veth pair: where it reaches a server of this side. */
  gateway: string;
  /** The command and arguments that run `file args` on the host. */
  wrap(file: string, args: readonly string[]): [string, string[]];
}

export interface NetHosts {
  hosts: NetHost[];
  /** Cuts a host off (its link down) or joins it again. */
  setLink(host: NetHost, up: boolean): Promise<void>;
  /** Removes the namespaces (and with them the veth pairs). Stop what runs in them first. */
  remove(): Promise<void>;
}

async function ip(...args: string[]): Promise<void> {
  try {
    await run('ip', args);
  } catch (err) {
    const why = (err as { stderr?: string }).stderr?.trim() || (err as Error).message;
    throw new Error(
      `\`ip ${args.join(' ')}\` failed: ${why}. Tests of several hosts need root and iproute2 ` +
        `(network namespaces and veth pairs), as CI has them: run the suite as root.`,
    );
  }
}

/** Creates `count` hosts on the subnets 10.213.<i>.0/30 (this side .1, the host .2). */
export async function createNetHosts(count: number): Promise<NetHosts> {
  const tag = `c${process.pid % 100000}`;
  const created: string[] = [];
  const hosts: NetHost[] = [];
  const links = new Map<NetHost, string>();
  try {
    for (let i = 1; i <= count; i++) {
      const ns = `${tag}-h${i}`;
      const outer = `${tag}h${i}o`;
      const inner = `${tag}h${i}i`;
      const gateway = `10.213.${i}.1`;
      await ip('netns', 'add', ns);
      created.push(ns);
      await ip('link', 'add', outer, 'type', 'veth', 'peer', 'name', inner);
      await ip('link', 'set', inner, 'netns', ns);
      await ip('addr', 'add', `${gateway}/30`, 'dev', outer);
      await ip('link', 'set', outer, 'up');
      await ip('netns', 'exec', ns, 'ip', 'addr', 'add', `10.213.${i}.2/30`, 'dev', inner);
      await ip('netns', 'exec', ns, 'ip', 'link', 'set', inner, 'up');
      await ip('netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
      const name = `cairn-host-${i}`;
      const host: NetHost = {
        name,
        gateway,
        // unshare gives the host its own hostname; `ip netns exec` its network. Each execs the next.
        wrap: (file, args) => ['unshare', ['--uts', '--', 'sh', '-c', 'hostname "$0" && ns=$1 && shift && exec ip netns exec "$ns" "$@"', name, ns, file, ...args]],
      };
      hosts.push(host);
      links.set(host, outer);
    }
  } catch (err) {
    for (const ns of created) await run('ip', ['netns', 'del', ns]).catch(() => undefined);
    throw err;
  }
  return {
    hosts,
    setLink: (host, up) => ip('link', 'set', links.get(host)!, up ? 'up' : 'down'),
    async remove() {
      for (const ns of created) await run('ip', ['netns', 'del', ns]).catch(() => undefined);
    },
  };
}
