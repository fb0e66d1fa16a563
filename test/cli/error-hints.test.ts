import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloneLocally, makeBareRemote } from '../api/codebases/git-fixtures.js';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';
import { assertBuilt, runCli, userCliEnv } from './cli-process.js';

/**
 * What the CLI prints against a real server (found through $CAIRN_HOME/run/server.json, as a
 * user's shell finds it) when the input names something that does not exist: the server's error
 * with the `cairn` command to run next (src/cli/error-hints.ts), in the command's own flags.
 */

const unknownRun = '00000000-0000-4000-8000-000000000000';

let home: TempHome;
beforeAll(async () => {
  assertBuilt();
  home = await makeTempHome();
  // A home workflow whose file does not load (no description).
  await writeHomeWorkflow(home, 'nodesc', 'name: nodesc\nnodes:\n  - id: a\n    bash: echo a\n');
  await startServer(home);
});
afterAll(async () => {
  await home?.close();
});

const cli = (argv: string[]) => runCli(argv, { env: userCliEnv(home.home), cwd: home.home });

describe('an id, name or codebase that does not exist: the error says what to run next', () => {
  for (const sub of ['get', 'logs', 'cancel', 'delete', 'resume']) {
    it(`\`cairn run ${sub} <whole id of no run>\` points at \`cairn run list\``, async () => {
      const res = await cli(['run', sub, unknownRun]);
      expect(res.code).toBe(1);
      expect(res.stderr).toContain('Workflow run not found');
      expect(res.stderr).toContain('cairn run list');
    });
  }

  it('`cairn workflow run <unknown name>` points at `cairn workflow list`, as `cairn workflow get` does', async () => {
    const get = await cli(['workflow', 'get', 'no-such-workflow']);
    expect(get.stderr).toContain('cairn workflow list');
    const res = await cli(['workflow', 'run', 'no-such-workflow']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('Workflow not found: no-such-workflow');
    expect(res.stderr).toContain('cairn workflow list');
  });

  it('`cairn workflow run` of a file that does not load points at `cairn workflow validate`, as `cairn workflow get` does', async () => {
    const get = await cli(['workflow', 'get', 'nodesc']);
    expect(get.stderr).toContain('cairn workflow validate nodesc');
    const res = await cli(['workflow', 'run', 'nodesc']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('cairn workflow validate nodesc');
  });

  for (const argv of [
    ['codebase', 'remove', 'no/such'],
    ['codebase', 'allow-env', 'no/such'],
    ['workflow', 'run', 'demo-parallel-checks', '--codebase', 'no/such'],
  ]) {
    it(`\`cairn ${argv.join(' ')}\` points at \`cairn codebase list\`, not at an HTTP route`, async () => {
      const res = await cli(argv);
      expect(res.code).toBe(1);
      expect(res.stderr).toContain('no/such');
      expect(res.stderr).toContain('cairn codebase list');
      expect(res.stderr).not.toContain('GET /api/codebases');
    });
  }

  it('`cairn workflow run … --branch b` without a codebase names the CLI flags, not the API fields', async () => {
    const res = await cli(['workflow', 'run', 'demo-parallel-checks', '--branch', 'topic']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('--codebase');
    expect(res.stderr).not.toMatch(/\bcodebaseId\b/);
  });

  it('`cairn workflow run … --codebase <id> --cwd <another dir>` names --cwd and --codebase, not the API fields', async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), 'cairn-cli-hints-')));
    home.defer(() => rm(root, { recursive: true, force: true }));
    const clone = cloneLocally(root, makeBareRemote(root, 'acme', 'widget'), 'widget');
    expect((await cli(['codebase', 'add', clone])).code).toBe(0);
    const res = await cli(['workflow', 'run', 'demo-parallel-checks', '--codebase', 'acme/widget', '--cwd', root]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`--cwd '${root}' is not the checkout of codebase acme/widget`);
    expect(res.stderr).toContain('pass only one of --cwd and --codebase');
    expect(res.stderr).not.toMatch(/\bcodebaseId\b/);
  });
});
