import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { assertBuilt, userCliEnv } from './cli-process.js';
import { sh } from './shell-line.js';

/**
 * The README's Quick start, as written: the demo run with `node bin/cairn.js` in the checkout,
 * and `cairn` typed from another folder once linked. `npm link` itself writes to npm's global
 * prefix, so the test makes the link npm makes (a `cairn` symlink to bin/cairn.js in a folder on
 * PATH) in a temp folder instead.
 */

const checkout = fileURLToPath(new URL('../../', import.meta.url));
let home: TempHome;
beforeAll(assertBuilt);
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

function cliEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return userCliEnv(home.home, extra);
}

describe('README Quick start', () => {
  it('runs the bundled demo with node bin/cairn.js in the checkout', async () => {
    await startServer(home);
    const list = await sh('node bin/cairn.js workflow list', checkout, cliEnv());
    expect(list.stderr).toBe('');
    expect(list.stdout).toMatch(/^demo-parallel-checks\s+bundled/m);
    const run = await sh('node bin/cairn.js workflow run demo-parallel-checks', checkout, cliEnv());
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Run \S+ completed in/);
  });

  it('runs `cairn` from any folder once it is linked onto PATH', async () => {
    const bin = await mkdtemp(join(tmpdir(), 'cairn-linked-'));
    home.defer(() => rm(bin, { recursive: true, force: true }));
    await symlink(join(checkout, 'bin', 'cairn.js'), join(bin, 'cairn'));
    await startServer(home);
    const env = cliEnv({ PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` });
    const version = await sh('cairn --version', bin, env);
    expect(version.stdout).toMatch(/^cairn \d+\.\d+\.\d+\n$/);
    const run = await sh('cairn workflow run demo-parallel-checks', bin, env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });
});
