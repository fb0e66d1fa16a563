import { readFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cloneLocally, makeBareRemote } from './codebases/git-fixtures.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * `GET /api/workflows/runs/{runId}/diff` on the real server: a run on a registered clone whose
 * first bash node commits a change on the run's branch and whose second leaves one uncommitted;
 * the run's diff against main holds both, each attempt's diff its own, and the refusals say why.
 */

let home: TempHome;
let server: RunningServer;
const codebaseId = 'acme/widget';

beforeAll(async () => {
  home = await makeTempHome();
  const root = await realpath(await mkdtemp(join(tmpdir(), 'cairn-diff-')));
  home.defer(() => rm(root, { recursive: true, force: true }));
  const clone = cloneLocally(root, makeBareRemote(root, 'acme', 'widget', { 'README.md': 'widget\n', 'old.txt': 'one\ntwo\n' }), 'widget');
  await writeHomeWorkflow(home, 'change', `name: change
description: commits one change, then leaves another uncommitted
nodes:
  - id: commit
    bash: 'printf "hello\\n" > greet.txt && printf "one\\n" > old.txt && git add greet.txt old.txt && git commit -q -m "greet"'
  - id: edit
    depends_on: [commit]
    bash: 'printf "widget, edited\\n" > README.md'
`);
  // Two nodes that each wait until the other has started: their attempts overlap in the worktree.
  await writeHomeWorkflow(home, 'pair', `name: pair
description: two nodes at work in the worktree at once
nodes:
  - id: left
    bash: 'touch "$ARTIFACTS_DIR/left-started"; while [ ! -e "$ARTIFACTS_DIR/right-started" ]; do sleep 0.05; done; echo left > left.txt'
  - id: right
    bash: 'touch "$ARTIFACTS_DIR/right-started"; while [ ! -e "$ARTIFACTS_DIR/left-started" ]; do sleep 0.05; done; echo right > right.txt'
`);
  await writeHomeWorkflow(home, 'plain', 'name: plain\ndescription: no codebase\nnodes:\n  - id: a\n    bash: "true"\n');
  server = await startServer(home, { GIT_AUTHOR_NAME: 'Ada', GIT_AUTHOR_EMAIL: 'ada@example.com', GIT_COMMITTER_NAME: 'Ada', GIT_COMMITTER_EMAIL: 'ada@example.com' });
  const added = await fetch(`${server.url}/api/codebases`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: clone }) });
  expect(added.status, await added.clone().text()).toBeLessThan(300);
});
afterAll(async () => {
  await home?.close();
});

async function ended(runId: string): Promise<Record<string, any>> {
  return waitFor(async () => {
    const { run } = await getRun(server.url, runId);
    return ['completed', 'failed'].includes(run.status as string) ? run : undefined;
  }, { what: `run ${runId} to end`, timeoutMs: 45_000 });
}

const diffOf = async (runId: string, query = '') => {
  const res = await fetch(`${server.url}/api/workflows/runs/${runId}/diff${query}`);
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

it('answers what the run changed against its base branch, and what each attempt changed', async () => {
  const { runId } = await startRun(server.url, 'change', { codebaseId });
  expect((await ended(runId)).status).toBe('completed');

  const run = await diffOf(runId);
  expect(run.status, JSON.stringify(run.body)).toBe(200);
  expect(run.body).toMatchObject({ runId, scope: 'run', attemptId: null, base: 'main', to: null, truncated: false });
  expect(run.body.branch).toMatch(/^cairn\/change-/);
  expect(run.body.files).toEqual([
    { path: 'README.md', added: 1, removed: 1 },
    { path: 'greet.txt', added: 1, removed: 0 },
    { path: 'old.txt', added: 0, removed: 1 },
  ]);
  expect(run.body.diff).toContain('+++ b/greet.txt\n@@ -0,0 +1 @@\n+hello\n');
  expect(run.body.diff).toContain('-widget\n+widget, edited\n');

  // Each attempt: the commit one committed, the edit the other left.
  const logs = (await (await fetch(`${server.url}/api/workflows/runs/${runId}/logs`)).json()) as { attempts: { path: string; attemptId: string }[] };
  const attemptOf = (path: string) => logs.attempts.find((a) => a.path === path)!.attemptId;
  const first = await diffOf(runId, `?attempt=${attemptOf('commit')}`);
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  expect(first.body).toMatchObject({ scope: 'attempt', path: 'commit', base: null, to: expect.stringMatching(/^[0-9a-f]{40}$/) });
  expect(first.body.files.map((f: { path: string }) => f.path)).toEqual(['greet.txt', 'old.txt']);
  const second = await diffOf(runId, `?attempt=${attemptOf('edit')}`);
  expect(second.body).toMatchObject({ scope: 'attempt', path: 'edit', to: null });
  expect(second.body.files).toEqual([{ path: 'README.md', added: 1, removed: 1 }]);

  // docs/http-api.md's example answer has the real answer's keys, and its file entry an entry's.
  const doc = readFileSync(new URL('../../docs/http-api.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('### `GET /api/workflows/runs/{runId}/diff`'));
  const example = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(section)![1]!) as Record<string, any>;
  expect(Object.keys(example).sort()).toEqual(Object.keys(run.body).sort());
  expect(Object.keys(example.files[0]).sort()).toEqual(Object.keys(run.body.files[0]).sort());
  expect(example.files[0]).toEqual(run.body.files.find((f: { path: string }) => f.path === 'greet.txt'));

  expect(await diffOf(runId, '?attempt=no-such-attempt')).toMatchObject({ status: 404, body: { code: 'NOT_FOUND', error: expect.stringContaining('/logs') } });
});

it('refuses a run without a worktree (404), an unknown run (404), and a run whose worktree was removed (409)', async () => {
  const plain = await startRun(server.url, 'plain');
  await ended(plain.runId);
  const none = await diffOf(plain.runId);
  expect(none).toMatchObject({ status: 404, body: { code: 'RUN_WORKTREE_NOT_FOUND' } });
  expect(none.body.error).toContain('has no worktree of its own');
  expect(await diffOf('no-such-run')).toMatchObject({ status: 404, body: { code: 'RUN_NOT_FOUND' } });

  const { runId } = await startRun(server.url, 'change', { codebaseId });
  await ended(runId);
  const envs = (await (await fetch(`${server.url}/api/codebases/${codebaseId}/environments`)).json()) as { environments: { id: string; workflow_id: string }[] };
  const env = envs.environments.find((e) => e.workflow_id === runId)!;
  const removed = await fetch(`${server.url}/api/codebases/${codebaseId}/environments/${env.id}`, { method: 'DELETE' });
  expect(removed.status, await removed.clone().text()).toBe(200);
  const gone = await diffOf(runId);
  expect(gone).toMatchObject({ status: 409, body: { code: 'RUN_DIFF_UNAVAILABLE' } });
  expect(gone.body.error).toContain('was removed');
});

it('refuses the diff of an attempt that ran alongside another in the same worktree, naming it; the run\'s diff holds both new files', async () => {
  const { runId } = await startRun(server.url, 'pair', { codebaseId });
  expect((await ended(runId)).status).toBe('completed');
  const logs = (await (await fetch(`${server.url}/api/workflows/runs/${runId}/logs`)).json()) as { attempts: { path: string; attemptId: string }[] };
  const left = logs.attempts.find((a) => a.path === 'left')!.attemptId;
  const refused = await diffOf(runId, `?attempt=${left}`);
  expect(refused).toMatchObject({ status: 409, body: { code: 'RUN_DIFF_UNAVAILABLE' } });
  expect(refused.body.error).toContain("ran alongside 'right' in the same worktree");
  const run = await diffOf(runId);
  // Neither file was committed or added to git: both are in the run's diff as new files.
  expect(run.body.files).toEqual([{ path: 'left.txt', added: 1, removed: 0 }, { path: 'right.txt', added: 1, removed: 0 }]);
  expect(run.body.diff).toContain('diff --git a/left.txt b/left.txt\nnew file mode 100644\n');
  expect(run.body.diff).toContain('+right\n');
});
