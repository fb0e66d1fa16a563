import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from './cli-harness.js';
import { assertBuilt, runCli, userCliEnv } from './cli-process.js';

let root: string;
let home: string;
let project: string;

const hello = (name: string, description: string) => `name: ${name}
description: ${description}
nodes:
  - id: greet
    bash: echo hello
`;

const broken = `name: broken
nodes:
  - id: a
    bash: echo a
    colour: blue
  - id: b
    bash: echo b
    depends_on: [nowhere]
  - id: a
    bash: echo again
`;

/** A plain scalar containing `: ` (the README's old example): not valid YAML. */
const colonInScalar = 'name: colon\ndescription: Review: the diff\nnodes:\n  - id: a\n    bash: echo hi\n';

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'cairn-wf-')));
  home = join(root, 'home');
  project = join(root, 'project');
  await mkdir(join(home, 'workflows'), { recursive: true });
  await mkdir(join(project, '.cairn', 'workflows'), { recursive: true });
  await writeFile(join(home, 'workflows', 'hello.yaml'), hello('hello', 'from home'));
  await writeFile(join(home, 'workflows', 'broken.yaml'), broken);
  await writeFile(join(project, '.cairn', 'workflows', 'hello.yaml'), hello('hello', 'from the project'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const cli = (...argv: string[]) => runCliInProcess(argv, { env: { CAIRN_HOME: home }, cwd: project });

describe('cairn workflow list', () => {
  it('lists project, home and bundled workflows, the project one winning, and the files that did not load', async () => {
    const { code, stdout } = await cli('workflow', 'list');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^hello\s+project\s+from the project$/m);
    expect(stdout).toMatch(/^demo-parallel-checks\s+bundled\s/m);
    expect(stdout).toContain('1 file(s) did not load:');
    expect(stdout).toContain("broken.yaml (global): Missing required field 'description'");
  });

  it('without a project sees the home workflow', async () => {
    const { stdout } = await cli('workflow', 'list', '--cwd', root);
    expect(stdout).toMatch(/^hello\s+global\s+from home$/m);
  });

  it('prints the API shape with --json', async () => {
    const { code, stdout } = await cli('workflow', 'list', '--json');
    const body = JSON.parse(stdout) as { workflows: { workflow: { name: string }; source: string }[]; recommended: string[]; errors: unknown[] };
    expect(code).toBe(0);
    expect(body.workflows.find((w) => w.workflow.name === 'hello')?.source).toBe('project');
    expect(body.recommended).toEqual([]);
    expect(body.errors).toHaveLength(1);
  });
});

describe('cairn workflow get', () => {
  it('shows where the workflow comes from and its definition', async () => {
    const { code, stdout } = await cli('workflow', 'get', 'hello');
    expect(code).toBe(0);
    expect(stdout).toContain(`hello (project: ${join('.cairn', 'workflows', 'hello.yaml')})`);
    expect(stdout).toContain('description: from the project');
    expect(stdout).toContain('bash: echo hello');
  });

  it('says how to find workflows when the name is unknown', async () => {
    const { code, stderr } = await cli('workflow', 'get', 'nope');
    expect(code).toBe(1);
    expect(stderr).toContain('Workflow not found: nope');
    expect(stderr).toContain('cairn workflow list');
  });

  it('says a workflow whose YAML does not parse failed to load, with its file and the parse error', async () => {
    await writeFile(join(home, 'workflows', 'colon.yaml'), colonInScalar);
    const { code, stderr } = await cli('workflow', 'get', 'colon');
    expect(code).toBe(1);
    expect(stderr).toContain("'colon' is declared in colon.yaml (global), which did not load");
    expect(stderr).toMatch(/^ {2}YAML parse error: /m);
    expect(stderr).toContain('cairn workflow validate colon');
  });

  it('points at validate for a workflow whose file is invalid', async () => {
    const { code, stderr } = await cli('workflow', 'get', 'broken');
    expect(code).toBe(1);
    expect(stderr).toContain('cairn workflow validate broken');
  });
});

describe('cairn workflow validate', () => {
  it('prints every error of a workflow with its file and line, warnings too, and exits 1', async () => {
    const { code, stdout } = await cli('workflow', 'validate', 'broken');
    const file = join(home, 'workflows', 'broken.yaml');
    expect(code).toBe(1);
    expect(stdout.split('\n')).toEqual([
      `${file}: error: Missing required field 'description'`,
      `${file}:9: error: Duplicate node id: 'a'`,
      `${file}:6: error: Node 'b' depends_on unknown node 'nowhere'`,
      `${file}:3: warning: Node 'a': unknown key 'colour' will be ignored.`,
      `${file} is invalid: 3 error(s), 1 warning(s).`,
      '',
    ]);
  });

  it('checks a file given by path, relative to the current directory', async () => {
    const { code, stdout } = await cli('workflow', 'validate', join('.cairn', 'workflows', 'hello.yaml'));
    expect(code).toBe(0);
    expect(stdout).toBe(`${join('.cairn', 'workflows', 'hello.yaml')} is valid.\n`);
  });

  it('gives the line and column of a YAML syntax error', async () => {
    await writeFile(join(project, 'syntax.yaml'), 'name: x\nnodes: [\n  - a: b\n');
    const { code, stdout } = await cli('workflow', 'validate', 'syntax.yaml');
    expect(code).toBe(1);
    expect(stdout).toMatch(/^syntax\.yaml:3:3: error: YAML parse error: /m);
  });

  it('prints { valid, file, errors, warnings } with --json', async () => {
    const { code, stdout } = await cli('workflow', 'validate', 'broken', '--json');
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toEqual({
      valid: false,
      file: join(home, 'workflows', 'broken.yaml'),
      errors: ["Missing required field 'description'", "Duplicate node id: 'a'", "Node 'b' depends_on unknown node 'nowhere'"],
      warnings: ["Node 'a': unknown key 'colour' will be ignored."],
    });
  });

  it('finds a workflow whose YAML does not parse by name, and gives the parse error its line', async () => {
    await writeFile(join(home, 'workflows', 'colon.yaml'), colonInScalar);
    const { code, stdout } = await cli('workflow', 'validate', 'colon');
    expect(code).toBe(1);
    expect(stdout).toMatch(/colon\.yaml:2:\d+: error: YAML parse error: /);
  });

  it('finds a file whose name: cannot be read by its file name', async () => {
    await writeFile(join(home, 'workflows', 'unnamed.yaml'), 'nodes: [\n  - a: b\n');
    const { code, stdout } = await cli('workflow', 'validate', 'unnamed');
    expect(code).toBe(1);
    expect(stdout).toMatch(/unnamed\.yaml:2:3: error: YAML parse error: /);
  });

  it('--strict turns every warning into an error and exits 1, a key accepted but not acted on yet included', async () => {
    await writeFile(join(project, 'loose.yaml'), 'name: loose\ndescription: d\nrequires: [github]\nnodes:\n  - id: a\n    bash: echo a\n    colour: blue\n');
    expect((await cli('workflow', 'validate', 'loose.yaml')).code).toBe(0);
    const requires =
      "Workflow 'loose': 'requires' is accepted but not acted on yet: a run does not check for a connected GitHub identity first; a node that needs one fails when it reaches GitHub.";
    const { code, stdout } = await cli('workflow', 'validate', 'loose.yaml', '--strict');
    expect(code).toBe(1);
    expect(stdout.split('\n')).toEqual([
      `loose.yaml: error: ${requires}`,
      "loose.yaml:5: error: Node 'a': unknown key 'colour' will be ignored.",
      'loose.yaml is invalid: 2 error(s) (warnings count as errors with --strict).',
      '',
    ]);
    const json = await cli('workflow', 'validate', 'loose.yaml', '--strict', '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: false, errors: [requires, "Node 'a': unknown key 'colour' will be ignored."], warnings: [] });
  });

  it('prints the project config’s keys Cairn does not read as warnings of that file (errors with --strict)', async () => {
    await writeFile(join(project, '.cairn', 'config.yaml'), 'worktree:\n  copyFiles: [.env]\nenv:\n  FOO: bar\n');
    const copyFiles =
      '.cairn/config.yaml: worktree.copyFiles is not supported by Cairn: Cairn does not copy files into a run’s worktree (it holds what git tracks); it is ignored';
    const env =
      '.cairn/config.yaml: env is not supported by Cairn: Cairn does not set environment variables from a project config; give them per run (config.env in the run request); it is ignored';
    const { code, stdout } = await cli('workflow', 'validate', 'hello');
    expect(code).toBe(0);
    expect(stdout.split('\n')).toEqual([
      copyFiles.replace(': ', ': warning: '),
      env.replace(': ', ': warning: '),
      `${join('.cairn', 'workflows', 'hello.yaml')} is valid, 2 warning(s).`,
      '',
    ]);
    const strict = await cli('workflow', 'validate', 'hello', '--strict', '--json');
    expect(strict.code).toBe(1);
    expect(JSON.parse(strict.stdout)).toMatchObject({ valid: false, errors: [copyFiles, env], warnings: [] });
    const listed = await cli('workflow', 'list');
    expect(listed.stdout).toContain(`warning: ${copyFiles}`);
    expect(JSON.parse((await cli('workflow', 'list', '--json')).stdout).configWarnings).toEqual([copyFiles, env]);
  });

  it('says so when neither a workflow nor a file has that name', async () => {
    const { code, stderr } = await cli('workflow', 'validate', 'ghost');
    expect(code).toBe(1);
    expect(stderr).toContain('Workflow not found: ghost');
  });
});

describe('--cwd naming a directory that does not exist', () => {
  const missing = '/nonexistent-cairn-audit/project';
  for (const argv of [
    ['workflow', 'list', '--cwd', missing],
    ['workflow', 'get', 'demo-parallel-checks', '--cwd', missing],
    ['workflow', 'validate', 'demo-parallel-checks', '--cwd', missing],
  ]) {
    it(`\`cairn ${argv.join(' ')}\` says the directory does not exist instead of succeeding`, async () => {
      assertBuilt();
      const res = await runCli(argv, { env: userCliEnv(home), cwd: root });
      expect(res.code).not.toBe(0);
      expect(res.stderr).toContain(missing);
    });
  }
});
