import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * The env-leak gate through the real server: bun loads the `.env` of its working directory on
 * its own, so a run on a codebase whose `.env` holds secret-looking keys runs bun with
 * `--no-env-file` until the codebase's owner allows the keys; Cairn itself never loads them.
 */

let home: TempHome;
let project: string;
let server: RunningServer;
const secret = 'sk-live-should-not-leak-7f3a';

beforeEach(async () => {
  home = await makeTempHome();
  project = await realpath(await mkdtemp(join(tmpdir(), 'cairn-envgate-')));
  home.defer(() => rm(project, { recursive: true, force: true }));
  await writeFile(join(project, '.env'), `SECRET_TOKEN=${secret}\nPORT=3000\n`);
  server = await startServer(home);
  await writeHomeWorkflow(
    home,
    'peek',
    `name: peek
description: what the runtimes see of the project's .env
nodes:
  - id: bun
    script: "console.log('bun:' + String(process.env.SECRET_TOKEN))"
    runtime: bun
  - id: shell
    bash: 'echo "shell:\${SECRET_TOKEN:-unset}"'
`,
  );
});
afterEach(async () => {
  await home.close();
});

async function register(): Promise<string> {
  const res = await fetch(`${server.url}/api/codebases`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: project }),
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { id: string; env_scan: { keys: string[] } };
  expect(body.env_scan.keys).toEqual(['SECRET_TOKEN']);
  return body.id;
}

async function outputsOf(codebaseId: string): Promise<Record<string, string>> {
  const { runId } = await startRun(server.url, 'peek', { codebaseId });
  const { run, events } = await waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return ['completed', 'failed'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to end', timeoutMs: 45_000 });
  expect(run.status).toBe('completed');
  const outputs: Record<string, string> = {};
  for (const e of events) if (e.event_type === 'node_completed') outputs[e.step_name] = String(e.data.node_output).trim();
  return outputs;
}

it("keeps a codebase's secret-looking .env keys out of bun until they are allowed, and never loads them itself", async () => {
  const id = await register();
  expect(await outputsOf(id)).toEqual({ bun: 'bun:undefined', shell: 'shell:unset' });

  const patch = await fetch(`${server.url}/api/codebases/${encodeURIComponent(id)}`, {
    method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ allowEnvKeys: true }),
  });
  expect(patch.status).toBe(200);
  expect(await outputsOf(id)).toEqual({ bun: `bun:${secret}`, shell: 'shell:unset' });
});

it('decides at each run start: a secret added to .env after registration is blocked too', async () => {
  await writeFile(join(project, '.env'), 'PORT=3000\n');
  const res = await fetch(`${server.url}/api/codebases`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: project }),
  });
  const { id } = (await res.json()) as { id: string };
  await writeFile(join(project, '.env'), `PORT=3000\nSECRET_TOKEN=${secret}\n`);
  expect((await outputsOf(id)).bun).toBe('bun:undefined');
});
