import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkflowCatalog } from '../../src/workflow/catalog/catalog.js';
import { decideWhen } from '../../src/workflow/when/condition-evaluate.js';
import { topologicalOrder } from '../../src/workflow/graph/graph.js';
import type { ProducerState } from '../../src/workflow/substitution/resolve-output.js';
import { conditionLookup, substituteShell, type SubstitutionContext } from '../../src/workflow/substitution/substitute.js';

/** The starter set shipped in the package's own workflows/ and commands/ folders. */

let home: string;
let catalog: WorkflowCatalog;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'cairn-bundled-'));
  catalog = WorkflowCatalog.forHome(home);
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('bundled workflows', () => {
  it('ships the starter set, clean: no errors, no warnings, all valid', () => {
    const listing = catalog.list();
    expect(listing.errors).toEqual([]);
    expect(listing.workflows.map((w) => w.workflow.name)).toEqual([
      'assist',
      'demo-parallel-checks',
      'fix-github-issue',
      'parallel-review',
      'plan-implement-review',
    ]);
    for (const entry of listing.workflows) {
      expect(entry.source).toBe('bundled');
      expect(entry.parseWarnings, entry.workflow.name).toBeUndefined();
      expect(catalog.validate(entry.workflow)).toMatchObject({ valid: true });
    }
  });

  it('describes each workflow well enough for the chat router to pick it', () => {
    for (const { workflow } of catalog.list().workflows) {
      expect(workflow.description, workflow.name).toMatch(/Use when:/);
      expect(workflow.description, workflow.name).toMatch(/NOT for:/);
    }
  });

  it('uses only bundled commands, which are prefixed so a project command cannot replace them by accident', () => {
    const commands = new Set(catalog.commands().map((c) => c.name));
    const used = catalog.list().workflows.flatMap((w) => w.workflow.nodes.flatMap((n) => ('command' in n ? [n.command] : [])));
    expect(used.length).toBeGreaterThan(5);
    for (const name of used) {
      expect(name).toMatch(/^cairn-/);
      expect(commands.has(name), name).toBe(true);
      expect(catalog.loadCommand(name)).toMatchObject({ ok: true, source: 'bundled' });
    }
  });

  it('gates the plan with an approval and runs interactively', () => {
    const { workflow } = catalog.get('plan-implement-review');
    expect(workflow.interactive).toBe(true);
    expect(workflow.nodes.find((n) => n.id === 'approve-plan')).toMatchObject({ depends_on: ['plan'], approval: { capture_response: true } });
  });
});

describe('demo-parallel-checks', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'cairn-demo-'));
    writeFileSync(join(cwd, 'README.md'), '# demo\n');
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it('needs no AI: every node is a shell node, and five of them start at once', () => {
    const { workflow } = catalog.get('demo-parallel-checks');
    expect(workflow.nodes.every((n) => 'bash' in n)).toBe(true);
    expect(workflow.nodes.filter((n) => !n.depends_on?.length).map((n) => n.id)).toEqual(['system', 'disk', 'files', 'git', 'tools']);
  });

  it('runs in a real shell and joins every check in its report', () => {
    const { workflow } = catalog.get('demo-parallel-checks');
    const states = new Map<string, ProducerState>();
    const ctx: SubstitutionContext = {
      variables: { ARGUMENTS: 'demo', WORKFLOW_ID: 'run-demo' },
      inputs: {},
      declaredInputs: [],
      outputs: (id) => states.get(id),
    };
    for (const id of topologicalOrder(workflow.nodes)) {
      const node = workflow.nodes.find((n) => n.id === id)!;
      if (!('bash' in node)) throw new Error(`${id} is not a bash node`);
      const deps = node.depends_on ?? [];
      if (node.trigger_rule !== 'all_done' && deps.some((d) => states.get(d)?.status !== 'completed')) {
        states.set(id, { status: 'skipped' });
        continue;
      }
      if (node.when) {
        const decision = decideWhen(node.when, conditionLookup(ctx));
        if (!decision.run) {
          states.set(id, { status: 'skipped' });
          continue;
        }
      }
      const body = substituteShell(node.bash, ctx, 'sh');
      if (!body.ok) throw new Error(body.error.message);
      const run = spawnSync('sh', ['-c', body.text], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH, GIT_CEILING_DIRECTORIES: tmpdir(), ...body.env } });
      expect(run.status, `${id}: ${run.stderr}`).toBe(0);
      states.set(id, { status: 'completed', output: run.stdout.replace(/\n$/, '') });
    }

    expect(states.get('git')).toEqual({ status: 'completed', output: 'no' });
    expect(states.get('branch')).toEqual({ status: 'skipped' });
    expect(states.get('files')).toEqual({ status: 'completed', output: '1' });
    const report = states.get('report');
    expect(report?.status).toBe('completed');
    const lines = report?.status === 'completed' ? report.output.split('\n') : [];
    expect(lines.map((l) => l.split(':')[0])).toEqual(['system', 'disk', 'files', 'git', 'tools']);
    expect(lines).toContain('files:  1');
    expect(lines).toContain('git:    not a git checkout');
    expect(lines[0]).toMatch(/^system: \S+ \S+$/);
  });
});
