import { failed, passed, warned, type CheckResult } from './check.js';
import { reachUrl } from './reach-url.js';

/**
 * Whether a Cairn server runs for this home and answers `GET /api/health`. The address is the one
 * every command uses (`--url`, CAIRN_URL, the live launcher's `run/server.json`); with none of
 * them no server is running for this home, and nothing is probed (a server on the default port
 * may belong to another home).
 */

export interface ServerTarget {
  /** Base URL, or undefined when no server runs for this home. */
  url: string | undefined;
  /** Where the URL came from, for the line: `--url`, `CAIRN_URL`, the server file's path. */
  from: string;
  /** The launcher that wrote the server file, when that is where the URL came from. */
  launcherPid?: number;
  /** The address setting is unusable (a CAIRN_URL that is not a URL): why. */
  problem?: string;
}

export interface ServerState {
  check: CheckResult;
  /** The URL of a server that answered, for the database check. */
  answering?: string;
}

const ID = 'server';
const NAME = 'server';

export async function checkServer(target: ServerTarget, serverFile: string): Promise<ServerState> {
  if (target.problem !== undefined) return { check: failed(ID, NAME, target.problem, `fix ${target.from}, or unset it to use the server of this home`) };
  if (target.url === undefined) {
    return { check: warned(ID, NAME, `no server is running for this home (no live launcher in ${serverFile})`, 'start one with `cairn serve`') };
  }
  const url = target.url;
  const reach = await reachUrl(`${url}/api/health`);
  const restart =
    target.launcherPid !== undefined
      ? `the launcher (pid ${target.launcherPid}) wrote ${url} into ${serverFile}: stop it (kill ${target.launcherPid}) and start \`cairn serve\` again`
      : `start \`cairn serve\`, or fix ${target.from} to point at a running server`;
  if (!reach.ok) return { check: failed(ID, NAME, `${url} (from ${target.from}): no answer from ${reach.address}: ${reach.why}`, restart) };
  let health: { status?: unknown; version?: unknown; runningWorkflows?: unknown; concurrency?: { supervisor?: { up?: unknown } } } | undefined;
  try {
    health = JSON.parse(reach.body) as typeof health;
  } catch {
    health = undefined;
  }
  if (reach.status !== 200 || health?.status !== 'ok') {
    return { check: failed(ID, NAME, `${url} (from ${target.from}) answers /api/health with HTTP ${reach.status}, not as a Cairn server does`, restart) };
  }
  const running = typeof health.runningWorkflows === 'number' ? `, ${health.runningWorkflows} run(s) running` : '';
  const what = `${url} (from ${target.from}) answers: Cairn ${String(health.version)}`;
  if (health.concurrency?.supervisor?.up !== true) {
    return {
      answering: url,
      check: warned(ID, NAME, `${what}, but its supervisor is not up: no run moves`, 'look at the output of `cairn serve` (the supervisor is restarted when it dies); restart the server if it stays down'),
    };
  }
  return { answering: url, check: passed(ID, NAME, `${what}, supervisor up${running}`) };
}
