import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Store } from '../../../src/store/store.js';
import { loadWorkflowText } from '../../../src/workflow/loading/load-workflow.js';
import { cloneLocally, git, makeBareRemote } from '../../api/codebases/git-fixtures.js';
import { startSupervisor, type LooseEvent, type SupervisorHarness } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';

/**
 * `$BASE_BRANCH` through the real supervisor, against real git repositories: each source in its
 * order, recorded once on the run, a per-run base that only origin has, and the bundled
 * parallel-review's `scope` node, which failed on every repository before.
 */

let home: TempHome;
let root: string;
let store: Store;
let sup: SupervisorHarness;
beforeEach(async () => {
  home = await makeTempHome();
  root = await realpath(await mkdtemp(join(tmpdir(), 'cairn-base-run-')));
  home.defer(() => rm(root, { recursive: true, force: true }));
  store = home.openStore();
  sup = await startSupervisor(home);
});
afterEach(async () => {
  await home.close();
});

/** Registers `checkout` as codebase `id`, with the default branch the registry would know (or none). */
async function register(id: string, checkout: string, defaultBranch: string | null): Promise<void> {
  await store.registerCodebase({
    id, name: id, repository_url: null, default_cwd: checkout, default_branch: defaultBranch, kind: 'repo', managed: false,
    env_scan: { status: 'clean', files: [], keys: [], scanned_at: new Date().toISOString() },
  });
}

async function runOn(codebaseId: string, checkout: string, yaml: string, metadata: Record<string, unknown> = {}) {
  const loaded = loadWorkflowText(yaml);
  if (!loaded.ok) throw new Error(loaded.error);
  const run = await store.createRun({
    id: randomUUID(), workflowName: loaded.workflow.name, conversationId: `conv-${randomUUID()}`, workingPath: checkout,
    codebaseId, userMessage: '', inputs: {}, metadata, definition: loaded.workflow,
  });
  return sup.waitForStatus(run.id, ['completed', 'failed', 'cancelled', 'paused']);
}

function outputOf(events: LooseEvent[], node: string): unknown {
  const end = events.find((e) => e.step_name === node && (e.event_type === 'node_completed' || e.event_type === 'node_failed'));
  return end?.event_type === 'node_completed' ? end.data.node_output : { failed: end?.data.error };
}

/** One bash node that prints $BASE_BRANCH as substituted and as exported. */
const printBase = `name: print-base
description: prints the base branch
nodes:
  - id: base
    bash: 'printf "%s|%s" "$BASE_BRANCH" "$(printenv BASE_BRANCH)"'
`;

it('takes worktree.baseBranch from the project config, records it, and keeps it for a resume', async () => {
  const clone = cloneLocally(root, makeBareRemote(root, 'acme', 'widget'), 'widget');
  mkdirSync(join(clone, '.cairn'));
  writeFileSync(join(clone, '.cairn', 'config.yaml'), 'worktree:\n  baseBranch: develop\n');
  await register('acme/widget', clone, 'main');
  const run = await runOn('acme/widget', clone, printBase);
  expect(run.status).toBe('completed');
  expect(outputOf(await sup.events(run.id), 'base')).toBe('develop|develop');
  expect(run.metadata.base_branch).toEqual({ name: 'develop', source: 'project_config' });
  // The recorded value wins over a config edited since (a resume, a take-over use the same base).
  writeFileSync(join(clone, '.cairn', 'config.yaml'), 'worktree:\n  baseBranch: other\n');
  const again = await runOn('acme/widget', clone, printBase, { base_branch: run.metadata.base_branch });
  expect(outputOf(await sup.events(again.id), 'base')).toBe('develop|develop');
});

it('falls back to the codebase’s default branch, then origin/HEAD, then master', async () => {
  const clone = cloneLocally(root, makeBareRemote(root, 'acme', 'widget'), 'widget');
  git(clone, 'push', '-q', 'origin', 'HEAD:trunk');
  git(clone, 'remote', 'set-head', 'origin', 'trunk');
  await register('acme/known', clone, 'main');
  await register('acme/widget', clone, null);
  const known = await runOn('acme/known', clone, printBase);
  expect([outputOf(await sup.events(known.id), 'base'), known.metadata.base_branch]).toEqual(['main|main', { name: 'main', source: 'codebase' }]);
  const detected = await runOn('acme/widget', clone, printBase);
  expect([outputOf(await sup.events(detected.id), 'base'), detected.metadata.base_branch]).toEqual([
    'trunk|trunk', { name: 'trunk', source: 'origin_head' },
  ]);

  // A repository with only master and no remote.
  const old = join(root, 'old');
  mkdirSync(old);
  git(old, 'init', '-q', '-b', 'master');
  writeFileSync(join(old, 'a.txt'), 'a\n');
  git(old, 'add', '-A');
  git(old, 'commit', '-q', '-m', 'one');
  await register('acme/old', old, null);
  const master = await runOn('acme/old', old, printBase);
  expect([outputOf(await sup.events(master.id), 'base'), master.metadata.base_branch]).toEqual(['master|master', { name: 'master', source: 'master' }]);
});

it('cuts the run’s branch from a per-run base that only origin has, and that base is $BASE_BRANCH', async () => {
  const clone = cloneLocally(root, makeBareRemote(root, 'acme', 'widget'), 'widget');
  git(clone, 'checkout', '-q', '-b', 'release/2');
  writeFileSync(join(clone, 'release.txt'), 'two\n');
  git(clone, 'add', '-A');
  git(clone, 'commit', '-q', '-m', 'release two');
  git(clone, 'push', '-q', 'origin', 'release/2');
  const tip = git(clone, 'rev-parse', 'HEAD').trim();
  git(clone, 'checkout', '-q', 'main');
  git(clone, 'branch', '-q', '-D', 'release/2');
  await register('acme/widget', clone, 'main');
  const run = await runOn(
    'acme/widget',
    clone,
    `name: on-release
description: works on the release base
nodes:
  - id: where
    bash: 'printf "%s %s %s" "$BASE_BRANCH" "$(git rev-parse HEAD)" "$(cat release.txt)"'
`,
    { isolation: { base: 'release/2' } },
  );
  expect(run.status).toBe('completed');
  expect(outputOf(await sup.events(run.id), 'where')).toBe(`release/2 ${tip} two`);
  expect(run.metadata.base_branch).toEqual({ name: 'release/2', source: 'request' });
  const [env] = await store.listIsolationEnvironments('acme/widget');
  expect(env?.metadata).toMatchObject({ base_branch: 'release/2' });
  // The user's checkout stays where it was.
  expect(git(clone, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('main');
});

it('fails only the node that needs $BASE_BRANCH when none can be found, saying how to give one', async () => {
  const plain = join(root, 'plain');
  mkdirSync(plain);
  const run = await sup.createRun(
    `name: needs-base
description: one node needs the base, one does not
nodes:
  - id: base
    bash: 'echo "$BASE_BRANCH"'
  - id: other
    bash: 'echo fine'
`,
    { workingPath: plain },
  );
  const ended = await sup.waitForStatus(run.id, ['completed', 'failed']);
  expect(ended.status).toBe('failed');
  const events = await sup.events(run.id);
  expect(outputOf(events, 'other')).toBe('fine');
  expect(outputOf(events, 'base')).toEqual({
    failed:
      "Node 'base': $BASE_BRANCH has no value for this run: pass --base <branch> (baseBranch in the run request), set " +
      'worktree.baseBranch in .cairn/config.yaml, or give the repository an origin/HEAD or a main branch',
  });
  expect(ended.metadata.base_branch).toBeUndefined();
});

it('fails a node that needs $BASE_BRANCH with the reason when the project’s worktree.baseBranch cannot be used', async () => {
  const clone = cloneLocally(root, makeBareRemote(root, 'acme', 'widget'), 'widget');
  mkdirSync(join(clone, '.cairn'));
  writeFileSync(join(clone, '.cairn', 'config.yaml'), 'worktree:\n  baseBranch: "main; touch pwned"\n');
  await register('acme/widget', clone, 'main');
  const run = await runOn('acme/widget', clone, printBase);
  expect(run.status).toBe('failed');
  expect(outputOf(await sup.events(run.id), 'base')).toEqual({
    failed:
      'Node \'base\': $BASE_BRANCH has no value for this run: worktree.baseBranch in .cairn/config.yaml ("main; touch pwned") ' +
      'cannot be used: it contains a character other than letters, digits and . _ / + -; fix it',
  });
});

it('runs the bundled parallel-review’s scope node: the diff against the base branch', async () => {
  const bundled = parse(readFileSync(fileURLToPath(new URL('../../../workflows/parallel-review.yaml', import.meta.url)), 'utf8')) as {
    mutates_checkout: boolean;
    nodes: { id: string }[];
  };
  const scope = bundled.nodes.find((n) => n.id === 'scope')!;
  const yaml = stringify({ name: 'review-scope', description: 'the scope node of parallel-review', mutates_checkout: bundled.mutates_checkout, nodes: [scope] });
  const clone = cloneLocally(root, makeBareRemote(root, 'acme', 'widget', { 'README.md': 'hi\n', 'lib.ts': 'export const a = 1;\n' }), 'widget');
  git(clone, 'checkout', '-q', '-b', 'feature/login');
  writeFileSync(join(clone, 'lib.ts'), 'export const a = 2;\nexport const b = 3;\n');
  git(clone, 'commit', '-q', '-am', 'change lib');
  writeFileSync(join(clone, 'notes.md'), 'draft\n');
  await register('acme/widget', clone, null);
  const run = await runOn('acme/widget', clone, yaml);
  expect(run.status).toBe('completed');
  const output = outputOf(await sup.events(run.id), 'scope') as string;
  expect(output).toContain('## Changed files (against main)');
  expect(output).toMatch(/lib\.ts \| 3 \+\+-/);
  expect(output).toContain('1 file changed');
  expect(output).toContain('## Uncommitted changes\n?? notes.md');
});
