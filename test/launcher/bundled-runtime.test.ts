import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bundledBinDir, childEnv, withBundledBin } from '../../src/launcher/child-env.js';
import { assertBuilt } from '../cli/cli-process.js';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * `cairn serve` finds the runtimes Cairn ships (bun, a dev dependency in node_modules/.bin)
 * however it is started, not only under `npm start`, whose npm puts that directory on PATH.
 */

/** This process's PATH without any directory that holds a `bun` (vitest under npx adds node_modules/.bin). */
const pathWithoutBun = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => dir !== '' && !existsSync(join(dir, 'bun')))
  .join(delimiter);

let home: TempHome;
beforeAll(assertBuilt);
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

describe('the bundled runtimes', () => {
  it('are there: the checkout has bun in node_modules/.bin', () => {
    expect(existsSync(join(bundledBinDir, 'bun'))).toBe(true);
  });

  it('run a `runtime: bun` script node under `node bin/cairn.js serve` with no bun on PATH', async () => {
    await writeHomeWorkflow(
      home,
      'bun-hello',
      `name: bun-hello\ndescription: one bun script\nnodes:\n  - id: hello\n    script: "console.log('bun ' + Bun.version)"\n    runtime: bun\n`,
    );
    const server = await startServer(home, { PATH: pathWithoutBun });
    const { runId } = await startRun(server.url, 'bun-hello');
    const run = await waitFor(
      async () => {
        const detail = await getRun(server.url, runId);
        return ['completed', 'failed'].includes(detail.run.status) ? detail : undefined;
      },
      { what: 'the run to end', timeoutMs: 60_000 },
    );
    const ended = run.events.find((e) => e.step_name === 'hello' && e.event_type !== 'node_started');
    expect(ended?.data.error).toBeUndefined();
    expect(run.run.status).toBe('completed');
    expect(ended?.data.node_output).toMatch(/^bun \d+\.\d+\.\d+/);
  });
});

describe("the children's PATH", () => {
  let bin: string;
  beforeEach(async () => {
    bin = await mkdtemp(join(tmpdir(), 'cairn-bin-'));
  });
  afterEach(async () => {
    await rm(bin, { recursive: true, force: true });
  });

  it('gets the bundled directory at its end, so what the user installed wins', () => {
    expect(withBundledBin(['/usr/local/bin', '/usr/bin'].join(delimiter), bin)).toBe(['/usr/local/bin', '/usr/bin', bin].join(delimiter));
  });

  it('is left as it is when the directory is on it already, does not exist, or PATH is unset', () => {
    const path = [bin, '/usr/bin'].join(delimiter);
    expect(withBundledBin(path, bin)).toBe(path);
    expect(withBundledBin('/usr/bin', join(bin, 'missing'))).toBe('/usr/bin');
    expect(withBundledBin(undefined, bin)).toBeUndefined();
  });

  it('comes with the port and home the launcher chose', () => {
    const env = childEnv({ PATH: '/usr/bin', PORT: '1', OTHER: 'x' }, { port: 4321, home: '/h', binDir: bin });
    expect(env).toEqual({ PATH: ['/usr/bin', bin].join(delimiter), PORT: '4321', CAIRN_HOME: '/h', OTHER: 'x' });
  });
});
