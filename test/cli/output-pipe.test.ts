import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, userCliEnv } from './cli-process.js';

/** The CLI as the last-but-one command of a shell pipeline, run as a real process with no server. */

const bin = fileURLToPath(new URL('../../bin/cairn.js', import.meta.url));

let home: string;
beforeEach(async () => {
  assertBuilt();
  home = await mkdtemp(join(tmpdir(), 'cairn-cli-pipe-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('output piped into a command that stops reading', () => {
  it('`cairn workflow get demo-parallel-checks | true` ends quietly, without an EPIPE stack trace', () => {
    // `true` exits before the CLI writes, as `| head -1` does once it has its line.
    const script = `"${process.execPath}" "${bin}" workflow get demo-parallel-checks | true; echo "status=\${PIPESTATUS[0]}" >&2`;
    const res = spawnSync('bash', ['-c', script], { env: userCliEnv(home), cwd: home, encoding: 'utf8' });
    expect(res.stderr).not.toMatch(/EPIPE|Unhandled 'error' event|at .*\.js:\d+/);
    expect(res.stderr).toContain('status=0');
  });
});
