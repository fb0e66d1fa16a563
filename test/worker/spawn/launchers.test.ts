import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { isProcessGroupAlive, killProcessGroup } from '../../../src/shared/process-group.js';
import type { ChildEnd, ChildLauncher, LaunchResult } from '../../../src/worker/spawn/child-launcher.js';
import { chooseLauncher } from '../../../src/worker/spawn/default-launcher.js';
import { directLauncher } from '../../../src/worker/spawn/direct-launcher.js';
import { findExecutable } from '../../../src/worker/spawn/find-executable.js';
import { SpawnHelper } from '../../../src/worker/spawn/spawn-helper.js';
import { sourceModule, tsxImport } from '../../helpers/built-files.js';
import { waitFor } from '../../helpers/wait-for.js';

const bash = findExecutable('bash', process.env.PATH)!;
const perl = findExecutable('perl', process.env.PATH);
const helper = perl ? new SpawnHelper(perl) : undefined;
afterAll(() => helper?.stop());

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-launch-'));
  return () => rm(dir, { recursive: true, force: true });
});

interface Ran {
  pid: number;
  stdout: string;
  stderr: string;
  end: ChildEnd;
}

/** Runs `bash -c script` through `launcher` and collects everything it printed. */
async function run(launcher: ChildLauncher, script: string, env: Record<string, string> = {}): Promise<Ran> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const launched = await launcher.launch(
    { file: bash, args: ['-c', script], cwd: dir, env },
    { stdout: (c) => out.push(c), stderr: (c) => err.push(c) },
  );
  if (!launched.ok) throw new Error(`launch failed: ${launched.error.message}`);
  launched.child.start();
  const end = await launched.child.closed;
  return { pid: launched.child.pid, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString(), end };
}

const launchers: [string, ChildLauncher][] = [['direct', directLauncher]];
if (helper) launchers.push(['spawn helper', helper]);

describe.each(launchers)('the %s launcher', (_name, launcher) => {
  it('relays stdout and stderr and reports the exit code', async () => {
    const ran = await run(launcher, 'echo out; echo err >&2; exit 7');
    expect(ran).toMatchObject({ stdout: 'out\n', stderr: 'err\n', end: { code: 7, signal: null } });
  });

  it('reports the signal that killed the child', async () => {
    const ran = await run(launcher, 'kill -TERM $$');
    expect(ran.end).toEqual({ code: null, signal: 'SIGTERM' });
  });

  it('starts the child in its cwd, as the leader of its own group and session, with stdin closed', async () => {
    const ran = await run(launcher, 'pwd; ps -o pgid= -o sid= -p $$; cat; echo eof');
    const [cwd, ids, eof] = ran.stdout.trim().split('\n');
    expect(cwd).toBe(dir);
    expect(ids!.trim().split(/\s+/).map(Number)).toEqual([ran.pid, ran.pid]);
    expect(eof).toBe('eof');
  });

  it('gives the child the worker environment plus the task variables', async () => {
    const ran = await run(launcher, 'echo "$CAIRN_X|$HOME"', { CAIRN_X: 'a b\nc' });
    expect(ran.stdout).toBe(`a b\nc|${process.env.HOME}\n`);
  });

  it('leaves SIGPIPE at its default in the child, so pipelines end as in a terminal', async () => {
    const ran = await run(launcher, 'yes | head -n 1');
    expect(ran).toMatchObject({ stdout: 'y\n', stderr: '', end: { code: 0 } });
  });

  it('relays large and concurrent outputs byte for byte', async () => {
    const scripts = ['a', 'b', 'c', 'd'].map((ch) => `head -c 300000 /dev/zero | tr '\\0' ${ch}; printf end-${ch}`);
    const results = await Promise.all(scripts.map((s) => run(launcher, s)));
    results.forEach((ran, i) => {
      const ch = 'abcd'[i]!;
      expect(ran.stdout.length).toBe(300_000 + 5);
      expect(ran.stdout).toBe(ch.repeat(300_000) + `end-${ch}`);
    });
  });

  it('holds the child at its gate until started: released unstarted, it exits 125 without running its program', async () => {
    const marker = join(dir, `gate-${Date.now()}-${Math.random()}`);
    const launched = (await launcher.launch(
      { file: bash, args: ['-c', `touch '${marker}'`], cwd: dir, env: {} },
      { stdout: () => {}, stderr: () => {} },
    )) as Extract<LaunchResult, { ok: true }>;
    // It leads its own group once scheduled (on a loaded machine, maybe not yet).
    await waitFor(() => isProcessGroupAlive(launched.child.pid), { what: 'the child to lead its group' });
    launched.child.release();
    expect(await launched.child.exited).toEqual({ code: 125, signal: null });
    expect(existsSync(marker)).toBe(false);
  });

  it('lets the caller stop waiting for output held open by a process outside the group', async () => {
    const out: Buffer[] = [];
    const launched = (await launcher.launch(
      // setsid puts the sleeper in a new session: killing the node's group does not reach it.
      { file: bash, args: ['-c', 'setsid sleep 60 & echo $!; sleep 60'], cwd: dir, env: {} },
      { stdout: (c) => out.push(c), stderr: () => {} },
    )) as Extract<LaunchResult, { ok: true }>;
    launched.child.start();
    while (!Buffer.concat(out).includes('\n')) await new Promise((r) => setImmediate(r));
    const escaped = Number(Buffer.concat(out).toString().trim());
    try {
      await killProcessGroup(launched.child.pid, { graceMs: 1000 });
      expect(await launched.child.exited).toEqual({ code: null, signal: 'SIGTERM' });
      launched.child.release();
      expect(isProcessGroupAlive(launched.child.pid)).toBe(false);
    } finally {
      // `setsid` may have forked and exited already (it forks when it leads a group).
      try {
        process.kill(escaped, 'SIGKILL');
      } catch {
        // gone
      }
    }
  });
});

describe.runIf(helper)('the spawn helper', () => {
  it('reports a child that cannot exec as exit code 127 with the reason on stderr', async () => {
    const script = join(dir, 'not-executable.sh');
    await writeFile(script, '#!/bin/sh\necho never\n');
    await chmod(script, 0o644);
    const errs: Buffer[] = [];
    // A helper of its own, as each test below has: nothing another test left behind reaches it.
    const own = new SpawnHelper(perl!);
    try {
      const launched = await own.launch(
        { file: script, args: [], cwd: dir, env: {} },
        { stdout: () => {}, stderr: (c) => errs.push(c) },
      );
      expect(launched.ok).toBe(true);
      if (!launched.ok) return;
      launched.child.start();
      expect(await launched.child.closed).toEqual({ code: 127, signal: null });
      expect(Buffer.concat(errs).toString()).toMatch(/cannot execute .*not-executable\.sh.*Permission denied/);
    } finally {
      own.stop();
    }
  });

  it('adopts and reaps what a node leaves behind, so orphans never pile up as zombies under PID 1', async () => {
    const out: Buffer[] = [];
    const own = new SpawnHelper(perl!);
    onTestFinished(() => own.stop());
    const launched = (await own.launch(
      // The leader exits at once; its background sleep outlives it.
      { file: bash, args: ['-c', 'sleep 30 >/dev/null 2>&1 & echo $!'], cwd: dir, env: {} },
      { stdout: (c) => out.push(c), stderr: () => {} },
    )) as Extract<LaunchResult, { ok: true }>;
    const helperPid = Number((await readFile(`/proc/${launched.child.pid}/stat`, 'latin1')).split(' ')[3]);
    launched.child.start();
    await launched.child.closed.catch(() => undefined);
    const orphan = Number(Buffer.concat(out).toString().trim());
    const parentOf = async (pid: number) => {
      const stat = await readFile(`/proc/${pid}/stat`, 'latin1').catch(() => undefined);
      return stat === undefined ? undefined : { ppid: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]), state: stat.slice(stat.lastIndexOf(')') + 2)[0] };
    };
    await waitFor(async () => (await parentOf(orphan))?.ppid === helperPid, { what: 'the orphan to be re-parented to the helper' });
    process.kill(orphan, 'SIGKILL');
    // Reaped: gone from /proc, not left a zombie.
    await waitFor(async () => (await parentOf(orphan)) === undefined, { what: 'the orphan to be reaped' });
  });

  it('when its owner is killed -9, ends the groups of the children still running: SIGTERM, then SIGKILL for one that ignores it', async () => {
    // The owner is a real Node process, as the supervisor is. A supervisor on another host that
    // takes its runs over cannot kill these processes by pid, so the helper must.
    const owner = spawn(process.execPath, [...tsxImport, '--input-type=module', '-e', `
      // The helper's pipes do not keep a process alive (the worker's own work does): this does.
      setInterval(() => {}, 1000);
      const { SpawnHelper } = await import(${JSON.stringify(sourceModule('src/worker/spawn/spawn-helper.ts'))});
      const helper = new SpawnHelper(${JSON.stringify(perl)});
      const pids = [];
      for (const script of ['sleep 60 & sleep 60', "trap '' TERM; sleep 60 & sleep 60"]) {
        const launched = await helper.launch({ file: ${JSON.stringify(bash)}, args: ['-c', script], cwd: ${JSON.stringify(dir)}, env: {} }, { stdout() {}, stderr() {} });
        launched.child.start();
        pids.push(launched.child.pid);
      }
      console.log(JSON.stringify(pids));
    `], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    owner.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    const groups = await waitFor(() => (out.includes('\n') ? (JSON.parse(out) as number[]) : undefined), { what: 'the owner to start two children' });
    // Both running, each with its background sleep: the leader's group has two members.
    await waitFor(() => groups.every(isProcessGroupAlive), { what: 'the children to run' });
    owner.kill('SIGKILL');
    await waitFor(() => !groups.some(isProcessGroupAlive), { what: 'both groups to be ended', timeoutMs: 20_000 });
  });

  it('when it dies, a child still waiting at its gate exits without running its program', async () => {
    const own = new SpawnHelper(perl!);
    const marker = join(dir, 'never-ran');
    try {
      const launched = (await own.launch(
        { file: bash, args: ['-c', `touch '${marker}'`], cwd: dir, env: {} },
        { stdout: () => {}, stderr: () => {} },
      )) as Extract<LaunchResult, { ok: true }>;
      const helperPid = Number((await readFile(`/proc/${launched.child.pid}/stat`, 'latin1')).split(' ')[3]);
      process.kill(helperPid, 'SIGKILL');
      await waitFor(() => !isProcessGroupAlive(launched.child.pid), { what: 'the gated child to exit' });
      expect(existsSync(marker)).toBe(false);
    } finally {
      own.stop();
    }
  });

  it('when it dies, kills the groups of the children it was running, ends them as lost, and starts again', async () => {
    const own = new SpawnHelper(perl!);
    try {
      const launched = (await own.launch(
        { file: bash, args: ['-c', 'sleep 60 & sleep 60'], cwd: dir, env: {} },
        { stdout: () => {}, stderr: () => {} },
      )) as Extract<LaunchResult, { ok: true }>;
      launched.child.start();
      const helperPid = parentPid(await readFile(`/proc/${launched.child.pid}/stat`, 'latin1'));
      process.kill(helperPid, 'SIGKILL');
      const end = await launched.child.closed;
      expect(end).toEqual({ code: null, signal: null, lost: `its spawn helper (perl, pid ${helperPid}) was killed by SIGKILL` });
      expect(await launched.child.exited).toEqual(end);
      // Ended only once the whole group (the background sleep too) is gone.
      expect(isProcessGroupAlive(launched.child.pid)).toBe(false);

      const again = await run(own, 'echo back');
      expect(again.stdout).toBe('back\n');
    } finally {
      own.stop();
    }
  });

  it('sends a request its dead helper never answered to a new one', async () => {
    const own = new SpawnHelper(perl!);
    try {
      const first = (await own.launch({ file: bash, args: ['-c', 'sleep 60'], cwd: dir, env: {} }, { stdout: () => {}, stderr: () => {} })) as Extract<LaunchResult, { ok: true }>;
      const helperPid = parentPid(await readFile(`/proc/${first.child.pid}/stat`, 'latin1'));
      process.kill(helperPid, 'SIGKILL');
      // Asked in the same turn, before the launcher has seen the death: it goes to the dead helper.
      const out: Buffer[] = [];
      const launched = await own.launch({ file: bash, args: ['-c', 'echo $PPID'], cwd: dir, env: {} }, { stdout: (c) => out.push(c), stderr: () => {} });
      if (!launched.ok) throw new Error(launched.error.message);
      launched.child.start();
      expect(await launched.child.closed).toEqual({ code: 0, signal: null });
      expect(Number(Buffer.concat(out).toString())).not.toBe(helperPid);
      expect((await first.child.closed).lost).toMatch(/was killed by SIGKILL/);
    } finally {
      own.stop();
    }
  });

  it('is started again however often it is killed after it worked', async () => {
    const own = new SpawnHelper(perl!, { restartLimit: { maxEarlyDeaths: 2, pauseMs: 60_000 } });
    try {
      for (let death = 1; death <= 3; death++) {
        const launched = (await own.launch({ file: bash, args: ['-c', 'sleep 60'], cwd: dir, env: {} }, { stdout: () => {}, stderr: () => {} })) as Extract<LaunchResult, { ok: true }>;
        process.kill(parentPid(await readFile(`/proc/${launched.child.pid}/stat`, 'latin1')), 'SIGKILL');
        expect((await launched.child.closed).lost).toBeDefined();
      }
      expect((await run(own, 'echo still')).stdout).toBe('still\n');
    } finally {
      own.stop();
    }
  });
});

describe('a spawn helper that cannot run', () => {
  it('is started a bounded number of times, then a launch fails with the reason and what to do', async () => {
    // `false` stands in for a perl that dies before it answers anything.
    const own = new SpawnHelper(findExecutable('false', process.env.PATH)!, { restartLimit: { maxEarlyDeaths: 3, pauseMs: 60_000 } });
    try {
      const refused = await own.launch({ file: bash, args: ['-c', 'true'], cwd: dir, env: {} }, { stdout: () => {}, stderr: () => {} });
      expect(refused).toMatchObject({ ok: false, error: { unavailable: true } });
      if (refused.ok) return;
      expect(refused.error.message).toMatch(
        /died 3 times in a row before it could start anything \(last: pid \d+ exited with code 1\), so it is not started again for 60 s/,
      );
      expect(refused.error.message).toMatch(/perl -e 1.*CAIRN_EXEC_SPAWNER=direct/);
      // Within the pause, nothing is started: the next launch is refused at once.
      expect(await own.launch({ file: bash, args: ['-c', 'true'], cwd: dir, env: {} }, { stdout: () => {}, stderr: () => {} })).toMatchObject({ ok: false });
    } finally {
      own.stop();
    }
  });
});

/** The parent pid in a /proc/<pid>/stat line. */
function parentPid(stat: string): number {
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

describe('choosing a launcher', () => {
  it('uses the spawn helper when perl is on PATH, Node spawn otherwise or when told', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'cairn-no-perl-'));
    try {
      expect(chooseLauncher({ PATH: empty }).kind).toBe('direct');
      expect(chooseLauncher({ PATH: process.env.PATH, CAIRN_EXEC_SPAWNER: 'direct' }).kind).toBe('direct');
      if (perl) expect(chooseLauncher({ PATH: process.env.PATH }).kind).toBe('helper');
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
