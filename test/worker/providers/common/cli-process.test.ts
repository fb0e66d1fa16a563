import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isProcessGroupAlive } from '../../../../src/shared/process-group.js';
import { launchCli } from '../../../../src/worker/providers/common/cli-process.js';
import { defaultLauncher } from '../../../../src/worker/spawn/default-launcher.js';
import { scratch } from '../agent-harness.js';

/** The CLI process every vendor adapter runs: a real process group started by the real launcher. */

let dir: ReturnType<typeof scratch>;
beforeEach(() => {
  dir = scratch();
});
afterEach(() => dir.cleanup());

describe('launchCli', () => {
  it('makes a stop that is already under way wait for the whole group to be gone', async () => {
    // A CLI that ignores SIGTERM: only the SIGKILL after the grace period ends it.
    const cli = join(dir.dir, 'stubborn-cli');
    writeFileSync(cli, "#!/bin/sh\ntrap '' TERM\necho ready\nsleep 60 &\nsleep 60\n");
    chmodSync(cli, 0o755);
    writeFileSync(join(dir.dir, 'prompt.md'), 'hi');
    const controller = new AbortController();
    const launched = await launchCli({
      launcher: defaultLauncher(),
      ctx: { signal: controller.signal },
      args: [cli],
      cwd: dir.dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      promptFile: join(dir.dir, 'prompt.md'),
      name: 'cairn-test-cli',
    });
    if (!launched.ok) throw new Error(launched.error);
    const proc = launched.proc;
    for await (const line of proc.lines) if (line.includes('ready')) break;

    controller.abort('timeout'); // a watchdog: the stop starts here, and is not awaited
    expect(proc.stopped).toBe(true);
    await proc.stop(); // the adapter's own stop once it sees the abort
    expect(isProcessGroupAlive(proc.pid)).toBe(false);
    proc.finish();
  });
});
