import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { sealRunEnv } from '../../src/runs/run-env.js';
import { loadSettings } from '../../src/shared/config.js';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';
import { newRun } from '../store/fixtures.js';

/**
 * `GIT_CONFIG_COUNT` / `GIT_CONFIG_KEY_0=core.fsmonitor` in a run's environment makes git run a
 * command of the sender's choice. With the real server and supervisor: the run request carrying
 * them is refused, and a run whose sealed environment holds them anyway (queued before they were
 * refused) fails at its start without its node ever running git.
 */

let home: TempHome;
let repo: string;
beforeEach(async () => {
  home = await makeTempHome();
  repo = await mkdtemp(join(tmpdir(), 'cairn-fsmonitor-'));
  home.defer(() => rm(repo, { recursive: true, force: true }));
  execFileSync('git', ['init', '-q'], { cwd: repo });
  await writeFile(join(repo, 'STAMP.txt'), 'x\n');
});
afterEach(async () => {
  await home.close();
});

const stamp = [
  'name: stamp',
  'description: Commits a file on the run’s own branch',
  'nodes:',
  '  - id: stamp',
  '    bash: |',
  '      date -u > STAMP.txt',
  '      git add STAMP.txt',
  '      git -c user.name=cairn -c user.email=cairn@localhost commit -qm "Stamp from run $WORKFLOW_ID"',
].join('\n');

const payloadEnv = (marker: string) => ({
  GIT_CONFIG_COUNT: '1',
  GIT_CONFIG_KEY_0: 'core.fsmonitor',
  GIT_CONFIG_VALUE_0: `touch ${marker}; false`,
});

it('keeps GIT_CONFIG_* from reaching git: refused on the request, and failed at start when sealed in an older run', async () => {
  // The payload is live: given to git directly, it runs the command.
  const control = join(repo, 'control-marker');
  execFileSync('git', ['add', 'STAMP.txt'], { cwd: repo, env: { ...process.env, ...payloadEnv(control) } });
  expect(existsSync(control)).toBe(true);

  const server = await startServer(home);
  await writeHomeWorkflow(home, 'stamp', stamp);
  const marker = join(repo, 'pwned-marker');

  const refused = await fetch(`${server.url}/api/workflows/stamp/run?cwd=${encodeURIComponent(repo)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'go', config: { env: payloadEnv(marker) } }),
  });
  expect(refused.status).toBe(400);
  expect(((await refused.json()) as { error: string }).error).toMatch(/config\.env key 'GIT_CONFIG_COUNT' is not accepted: git reads GIT_\* variables/);
  const store = home.openStore();
  expect(await store.listRuns({ limit: 10 })).toEqual([]);

  // A run whose environment was sealed before the names were refused: the supervisor refuses to hand it over.
  const old = newRun({ workflowName: 'stamp', workingPath: repo, definition: { name: 'stamp', description: 's', nodes: [{ id: 'stamp', bash: 'git add STAMP.txt' }] } });
  const key = loadSettings({ CAIRN_HOME: home.home }).installKey();
  await store.createRun({ ...old, metadata: { sealed_env: sealRunEnv(key, old.id, payloadEnv(marker)) } });
  const failed = await waitFor(async () => {
    const run = await store.getRun(old.id);
    return run?.status === 'failed' ? run : undefined;
  }, { what: 'the old run to fail at its start', timeoutMs: 30_000 });
  expect(JSON.stringify(failed)).toMatch(/config\.env holds 'GIT_CONFIG_COUNT', which is not accepted/);
  expect((await store.listRunEvents(old.id)).map((event) => event.event_type)).not.toContain('node_started');
  expect(existsSync(marker)).toBe(false);

  // The README's stamp workflow still runs, with a name of the user's own in its environment.
  const ok = await fetch(`${server.url}/api/workflows/stamp/run?cwd=${encodeURIComponent(repo)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'go', config: { env: { STAMP_NOTE: 'hello', GIT_AUTHOR_NAME: 'Run Author' } } }),
  });
  expect(ok.status).toBe(200);
  const { runId } = (await ok.json()) as { runId: string };
  await waitFor(async () => (await store.getRun(runId))?.status === 'completed', { what: 'the stamp run to complete', timeoutMs: 30_000 });
  expect(execFileSync('git', ['log', '-1', '--format=%an'], { cwd: repo, encoding: 'utf8' }).trim()).toBe('Run Author');
  expect(existsSync(marker)).toBe(false);
});
