import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectConfigWarnings } from '../../src/workflow/project/project-config-keys.js';
import { readProjectRunConfig } from '../../src/workflow/project/project-run-config.js';
import { makeTempProject, workflowYaml, type TempProject } from './temp-project.js';

/** What Cairn does with each key of a project's config file: read it, or say it does not. */

describe('projectConfigWarnings', () => {
  it('says nothing about the keys Cairn reads', () => {
    const config = {
      assistant: 'claude',
      defaultAssistant: 'claude',
      assistants: { claude: { model: 'sonnet' } },
      tiers: { small: 'haiku', large: { provider: 'claude', model: 'opus', effort: 'high' } },
      aliases: { '@fast': 'claude/haiku' },
      workflows: { recommended: ['a'], bundled: false },
      recommendedWorkflows: ['a'],
      commands: { bundled: false },
      defaults: { loadDefaultWorkflows: true, loadDefaultCommands: true },
      worktree: { enabled: false, baseBranch: 'develop' },
      docs: { path: 'site/content' },
    };
    expect(projectConfigWarnings(config, '.cairn/config.yaml')).toEqual([]);
  });

  it('names each upstream key Cairn does not honour, with what it does instead', () => {
    const warnings = projectConfigWarnings(
      {
        worktree: { copyFiles: ['.env'], initSubmodules: true, path: '../wt', remote: 'upstream' },
        commands: { folder: 'cmds', autoLoad: true },
        env: { FOO: 'bar' },
        container: { image: 'x' },
        assistants: { claude: { model: 'sonnet', claudeBinaryPath: '/bin/claude', settingSources: ['project'] } },
        tiers: { small: { provider: 'claude', model: 'haiku', thinking: true } },
        botName: 'Archon',
        concurrency: { maxConversations: 3 },
      },
      '.archon/config.yaml',
    );
    expect(warnings).toEqual([
      '.archon/config.yaml: worktree.copyFiles is not supported by Cairn: Cairn does not copy files into a run’s worktree (it holds what git tracks); it is ignored',
      '.archon/config.yaml: worktree.initSubmodules is not supported by Cairn: Cairn does not initialise submodules in a run’s worktree; it is ignored',
      '.archon/config.yaml: worktree.path is not supported by Cairn: Cairn keeps worktrees under $CAIRN_HOME/workspaces/<owner>/<repo>/worktrees; it is ignored',
      '.archon/config.yaml: worktree.remote is not supported by Cairn: Cairn reads remote branches from origin only; it is ignored',
      '.archon/config.yaml: commands.folder is not supported by Cairn: Cairn looks commands up only in .cairn/commands, .archon/commands, $CAIRN_HOME/commands and its bundled ones; it is ignored',
      '.archon/config.yaml: commands.autoLoad is not supported by Cairn: Cairn has no command auto-loading; a node names its command; it is ignored',
      '.archon/config.yaml: env is not supported by Cairn: Cairn does not set environment variables from a project config; give them per run (config.env in the run request); it is ignored',
      '.archon/config.yaml: container is not supported by Cairn: Cairn does not run nodes in containers; it is ignored',
      '.archon/config.yaml: assistants.claude.claudeBinaryPath is not supported by Cairn: Cairn reads only assistants.<id>.model from a project config; it is ignored',
      '.archon/config.yaml: assistants.claude.settingSources is not supported by Cairn: Cairn reads only assistants.<id>.model from a project config; it is ignored',
      '.archon/config.yaml: tiers.small.thinking is not supported by Cairn: Cairn reads only provider, model and effort of a tier or alias; it is ignored',
      '.archon/config.yaml: botName is not supported by Cairn: it is an install setting: put it in $CAIRN_HOME/config.yaml, where Cairn reads it; it is ignored',
      '.archon/config.yaml: concurrency is not supported by Cairn: it is an install setting: put it in $CAIRN_HOME/config.yaml, where Cairn reads it; it is ignored',
    ]);
  });

  it('names unknown keys with the key they probably meant, and values its variables cannot use', () => {
    const warnings = projectConfigWarnings(
      { worktre: { enabled: false }, worktree: { basebranch: 'main', baseBranch: '--upload-pack=x' }, docs: { path: '../../etc' }, __proto__x: 1 },
      '.cairn/config.yaml',
    );
    expect(warnings).toEqual([
      ".cairn/config.yaml: worktre is not a key Cairn knows (did you mean 'worktree'?); it is ignored",
      ".cairn/config.yaml: worktree.basebranch is not a key Cairn knows (did you mean 'baseBranch'?); it is ignored",
      '.cairn/config.yaml: worktree.baseBranch "--upload-pack=x" cannot be used: it starts with "-"; fix it (runs that reference its variable fail until then)',
      '.cairn/config.yaml: docs.path "../../etc" cannot be used: it has a ".." part (it must stay inside the project); fix it (runs that reference its variable fail until then)',
      '.cairn/config.yaml: __proto__x is not a key Cairn knows; it is ignored',
    ]);
  });
});

describe('readProjectRunConfig', () => {
  let t: TempProject;
  beforeEach(() => {
    t = makeTempProject();
  });
  afterEach(() => t.close());

  it('takes each setting from .cairn/config.yaml first, then .archon/config.yaml', async () => {
    t.write('project:.cairn/config.yaml', 'worktree:\n  baseBranch: develop\n');
    t.write('project:.archon/config.yaml', 'worktree:\n  enabled: false\n  baseBranch: trunk\ndocs:\n  path: handbook/\n');
    expect(await readProjectRunConfig(t.cwd)).toEqual({
      worktreeEnabled: false,
      baseBranch: { value: 'develop', file: '.cairn/config.yaml' },
      docsPath: { value: 'handbook/', file: '.archon/config.yaml' },
    });
  });

  it('reports a value it cannot use instead of using it, and reads nothing from a folder without config', async () => {
    expect(await readProjectRunConfig(t.cwd)).toEqual({});
    t.write('project:.cairn/config.yaml', 'worktree:\n  baseBranch: "$(touch pwned)"\ndocs:\n  path: 7\n');
    expect(await readProjectRunConfig(t.cwd)).toEqual({
      baseBranch: {
        problem:
          'worktree.baseBranch in .cairn/config.yaml ("$(touch pwned)") cannot be used: it contains a character other than letters, digits and . _ / + -; fix it',
      },
      docsPath: { problem: 'docs.path in .cairn/config.yaml must be a string, not number; fix it' },
    });
  });
});

describe('the workflow listing', () => {
  let t: TempProject;
  beforeEach(() => {
    t = makeTempProject();
  });
  afterEach(() => t.close());

  it('carries the project config’s warnings, and none for a clean project', () => {
    t.write('project:.cairn/workflows/a.yaml', workflowYaml('a'));
    expect(t.catalog.list({ cwd: t.cwd }).configWarnings).toEqual([]);
    t.write('project:.cairn/config.yaml', 'worktree:\n  copyFiles: [.env]\n');
    expect(t.catalog.list({ cwd: t.cwd }).configWarnings).toEqual([
      '.cairn/config.yaml: worktree.copyFiles is not supported by Cairn: Cairn does not copy files into a run’s worktree (it holds what git tracks); it is ignored',
    ]);
    expect(t.catalog.list({ cwd: t.cwd }).workflows.map((w) => w.workflow.name)).toEqual(['a']);
  });
});
