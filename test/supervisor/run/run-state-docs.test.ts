import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Run } from '../../../src/store/schemas/run.js';
import type { Store } from '../../../src/store/store.js';
import { loadWorkflowText } from '../../../src/workflow/loading/load-workflow.js';
import { registeredWidgetClone } from '../../api/codebases/git-fixtures.js';
import { writeHomeWorkflow } from '../../helpers/workflows.js';
import { startSupervisor, type LooseEvent, type SupervisorHarness } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';

/**
 * `$STATE_DIR` and `$DOCS_DIR` through the real supervisor, and every run variable in every kind
 * of body a run has: bash and bun script nodes (substituted and exported), loop and loop_group
 * bodies, approval messages, `on_reject` reworks and child runs.
 */

let home: TempHome;
let clone: string;
let store: Store;
let sup: SupervisorHarness;
beforeEach(async () => {
  home = await makeTempHome();
  ({ clone, store } = await registeredWidgetClone(home, 'cairn-state-'));
  sup = await startSupervisor(home);
});
afterEach(async () => {
  await home.close();
});

async function createOn(yaml: string, metadata: Record<string, unknown> = {}): Promise<Run> {
  const loaded = loadWorkflowText(yaml);
  if (!loaded.ok) throw new Error(loaded.error);
  return store.createRun({
    id: randomUUID(), workflowName: loaded.workflow.name, conversationId: `conv-${randomUUID()}`, workingPath: clone,
    codebaseId: 'acme/widget', userMessage: '', inputs: {}, metadata, definition: loaded.workflow,
  });
}

async function runOn(yaml: string, metadata: Record<string, unknown> = {}): Promise<Run> {
  const run = await createOn(yaml, metadata);
  return sup.waitForStatus(run.id, ['completed', 'failed', 'cancelled']);
}

function outputOf(events: LooseEvent[], node: string): unknown {
  const end = events.find((e) => e.step_name === node && (e.event_type === 'node_completed' || e.event_type === 'node_failed'));
  return end?.event_type === 'node_completed' ? end.data.node_output : { failed: end?.data.error };
}

it('keeps $STATE_DIR across the runs of a codebase, outside every checkout', async () => {
  const state = home.paths.codebaseState('acme', 'widget');
  const yaml = (word: string) => `name: note-${word}\ndescription: appends to the state\nnodes:\n  - id: note\n    bash: 'echo ${word} >> "$STATE_DIR/log"; cat "$STATE_DIR/log"'\n`;
  const first = await runOn(yaml('one'));
  const second = await runOn(yaml('two'));
  expect([first.status, second.status]).toEqual(['completed', 'completed']);
  expect(outputOf(await sup.events(second.id), 'note')).toBe('one\ntwo');
  expect(await readFile(join(state, 'log'), 'utf8')).toBe('one\ntwo\n');
  expect([first.metadata.state_dir, second.metadata.state_dir]).toEqual([state, state]);
  // Two different worktrees worked on it; the user's checkout holds none of it.
  expect(first.working_path).not.toBe(second.working_path);
  expect(existsSync(join(clone, 'log'))).toBe(false);
});

it('has no $STATE_DIR for a run without a codebase: a node that needs it fails saying how to get one', async () => {
  const run = await sup.createRun(`name: scratch-state\ndescription: no codebase\nnodes:\n  - id: s\n    bash: 'ls "$STATE_DIR"'\n`);
  const ended = await sup.waitForStatus(run.id, ['completed', 'failed']);
  expect(ended.status).toBe('failed');
  expect(outputOf(await sup.events(run.id), 's')).toEqual({
    failed:
      "Node 's': $STATE_DIR has no value for this run: it is kept per registered codebase ($CAIRN_HOME/workspaces/<owner>/<repo>/state); " +
      'register the project (cairn codebase add <dir>) and run the workflow on it (--codebase <id>, or --cwd <its checkout>)',
  });
});

it('takes $DOCS_DIR from the run’s config.docs.path, else the project’s docs.path, else docs/', async () => {
  const yaml = `name: docs-dir\ndescription: prints the docs folder\nnodes:\n  - id: d\n    bash: 'printf "%s|%s" "$DOCS_DIR" "$(printenv DOCS_DIR)"'\n`;
  const plain = await runOn(yaml);
  expect(outputOf(await sup.events(plain.id), 'd')).toBe('docs/|docs/');
  mkdirSync(join(clone, '.cairn'));
  writeFileSync(join(clone, '.cairn', 'config.yaml'), 'docs:\n  path: handbook/\n');
  const project = await runOn(yaml);
  expect(outputOf(await sup.events(project.id), 'd')).toBe('handbook/|handbook/');
  const perRun = await runOn(yaml, { overrides: { config: { docs: { path: 'site/content' } } } });
  expect(outputOf(await sup.events(perRun.id), 'd')).toBe('site/content|site/content');
  // A project value it cannot use fails the node that needs it, naming the fix.
  writeFileSync(join(clone, '.cairn', 'config.yaml'), 'docs:\n  path: "docs\\"; touch pwned; \\""\n');
  const bad = await runOn(yaml);
  expect(bad.status).toBe('failed');
  expect((outputOf(await sup.events(bad.id), 'd') as { failed: string }).failed).toBe(
    'Node \'d\': $DOCS_DIR has no value for this run: docs.path in .cairn/config.yaml ("docs\\"; touch pwned; \\"") cannot be used: ' +
      'it contains a character other than letters, digits, spaces and . _ / + - @; fix it',
  );
});

it('gives every kind of body the run variables: scripts, loops, loop_groups, approvals, on_reject and child runs', async () => {
  await writeHomeWorkflow(
    home,
    'child-vars',
    `name: child-vars\ndescription: a child that prints what it got\nnodes:\n  - id: c\n    bash: 'printf "%s|%s" "$BASE_BRANCH" "$STATE_DIR"'\n`,
  );
  const state = home.paths.codebaseState('acme', 'widget');
  const run = await createOn(`name: everywhere
description: run variables in every kind of body
nodes:
  - id: sh
    bash: 'printf "%s|%s|%s" "$BASE_BRANCH" "$STATE_DIR" "$DOCS_DIR"'
  - id: js
    script: 'console.log(["$BASE_BRANCH", process.env.BASE_BRANCH, process.env.STATE_DIR, "$DOCS_DIR"].join("|"))'
    runtime: bun
  - id: lp
    loop:
      bash: 'echo "$BASE_BRANCH <promise>DONE</promise>"'
      until: DONE
      max_iterations: 2
  - id: grp
    loop_group:
      max_iterations: 1
      until_bash: 'test -d "$STATE_DIR"'
      nodes:
        - id: inner
          bash: 'printf "%s" "$STATE_DIR"'
  - id: child
    workflow: child-vars
  - id: gate
    depends_on: [sh, js, lp, grp, child]
    approval:
      message: "Merge into $BASE_BRANCH? Docs are in $DOCS_DIR"
      on_reject:
        bash: 'printf "%s|%s" "$REJECTION_REASON" "$BASE_BRANCH" > "$STATE_DIR/rework.txt"'
        max_attempts: 2
`);
  const paused = await sup.waitForStatus(run.id, ['paused', 'failed']);
  expect(paused.error).toBeNull();
  expect(paused.metadata.approval?.message).toBe('Merge into main? Docs are in docs/');
  const events = await sup.events(run.id);
  expect(outputOf(events, 'sh')).toBe(`main|${state}|docs/`);
  expect(outputOf(events, 'js')).toBe(`main|main|${state}|docs/`);
  expect(outputOf(events, 'lp')).toContain('main');
  expect(outputOf(events, 'grp')).toBe(state);
  expect(outputOf(events, 'child')).toBe(`main|${state}`);
  const [child] = await store.listChildRuns(run.id, 'child');
  expect(child?.metadata).toMatchObject({ base_branch: { name: 'main', source: 'codebase' }, state_dir: state });

  expect((await store.requestGateDecision({ runId: run.id, kind: 'reject_run', payload: { reason: 'not yet' } })).queued).toBe(true);
  await waitFor(async () => existsSync(join(state, 'rework.txt')) && (await store.getRun(run.id))?.status === 'paused', { what: 'the rework and the second ask' });
  expect(await readFile(join(state, 'rework.txt'), 'utf8')).toBe('not yet|main');
  expect((await store.requestGateDecision({ runId: run.id, kind: 'approve_run', payload: {} })).queued).toBe(true);
  expect((await sup.waitForStatus(run.id, ['completed', 'failed', 'cancelled'])).status).toBe('completed');
});
