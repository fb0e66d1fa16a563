import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { git } from '../api/codebases/git-fixtures.js';
import type { AgentScript } from '../helpers/agent-script.js';
import {
  answerGate, asks, checkoutState, codebaseId, failures, pathWithGhStandIn, startClaudeWorkflowBench, upstreamProject, waitForRun, type ClaudeWorkflowBench,
} from '../helpers/claude-workflow-run.js';
import { startGitHubServer, type GitHubServer } from '../helpers/github-server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { startRun } from '../helpers/workflows.js';
import { defaultsOutcomes } from './defaults-outcomes.js';
import { expectDefaultsRow } from './defaults-row.js';

/**
 * The upstream's default workflows (test/fixtures/corpus/upstream-defaults), against the table of
 * defaults-outcomes.ts: the table covers every file, and the rows that run here are run. Those
 * this file runs share ONE server, started side by side in one registered repository with the
 * workflows and their commands unchanged in `.archon/`, their AI nodes on the real Claude Code
 * CLI against the local Anthropic stand-in playing a scripted agent that does what each prompt
 * asks, and `gh` answered by its stand-in (test/fixtures/gh) from a local GitHub API. The other
 * rows that run here have their own test files (a row's `test`), which assert their row too.
 */
const defaults = fileURLToPath(new URL('../fixtures/corpus/upstream-defaults/', import.meta.url));
const readme = fileURLToPath(new URL('../../README.md', import.meta.url));
const workflowFiles = readdirSync(join(defaults, 'workflows')).filter((f) => f.endsWith('.yaml'));
const token = 'ghp_defaults_token';

// archon-resolve-conflicts: the pull request's branch and main each added a line at the end of the README.
const readmeOnMain = '# widget\n\nRun the tests with `npm test`.\n';
const readmeOnBranch = '# widget\n\nGreets people, loudly when asked.\n';
const readmeResolved = '# widget\n\nGreets people, loudly when asked.\n\nRun the tests with `npm test`.\n';

// archon-feature-development: the plan a user wrote, and what implementing it adds.
const plan = '# Plan: shout()\n\n## Summary\nAdd `shout(name)`: the greeting in capitals.\n\n## Files to Change\n- CREATE src/shout.js\n- CREATE test/shout.test.js\n\n## Validation Commands\n`bun run type-check && bun run lint && bun run test`\n';
const shout = "import { greet } from './greet.js';\n\nexport function shout(name) {\n  return greet(name).toUpperCase();\n}\n";
const shoutTest = "import assert from 'node:assert/strict';\nimport test from 'node:test';\nimport { shout } from '../src/shout.js';\n\ntest('shouts', () => assert.equal(shout('ada'), 'HELLO ADA'));\n";

// archon-workflow-builder: the intent it extracts, and the workflow it writes into the user's checkout.
const intent = {
  workflow_name: 'lint-and-test', description: 'Use when: checking a change. Does: lint -> test.', trigger_phrases: 'lint and test, check my change',
  proposed_nodes: 'lint (bash): bun run lint; test (bash): bun run test', execution_mode: 'dag',
};
const generated = 'name: lint-and-test\ndescription: |\n  Use when: checking a change.\n  Does: lint -> test.\nnodes:\n  - id: lint\n    bash: bun run lint\n  - id: test\n    bash: bun run test\n    depends_on: [lint]\n';

// archon-interactive-prd: a person's answers at its three gates, and the PRD written from them.
const gateAnswers = ['Developers scripting greetings; they need emphasis; no helper exists', 'Vision: one call to shout; primary user: CLI authors', 'MVP: shout(name) only; no i18n'];
const prd = '# shout(): PRD\n\n## Problem\nDevelopers scripting greetings need emphasis.\n\n## Technical Approach\nExtend `src/greet.js`.\n';
const prdNotes = '\n## Validation Notes\nAll technical references verified against codebase. No corrections needed.\n';

const scripts: AgentScript[] = [
  { match: /You are a sharp product manager starting a PRD creation process/, steps: [{ say: 'I understand you want to build: a shout() helper. Is this correct?\n\n**Foundation Questions:** 1. Who has this problem? ...' }] },
  {
    match: /You are researching context for a PRD/,
    steps: [{ tool: 'read', path: 'src/greet.js' }, { say: '**What I found:** greet() in src/greet.js.\n\n**Deep Dive Questions:** 1. Vision? ...' }],
  },
  {
    match: /You are assessing technical feasibility for a PRD/,
    steps: [{ tool: 'read', path: 'src/greet.js' }, { say: '**What Already Exists:** greet at `src/greet.js:1`.\n\n**Scope Questions:** 1. MVP? ...' }],
  },
  {
    match: /You are generating a PRD from the user's guided inputs/,
    steps: [{ tool: 'run', command: 'mkdir -p {artifacts}/prds' }, { tool: 'write', path: '{artifacts}/prds/shout.prd.md', content: prd }, { say: '{artifacts}/prds/shout.prd.md' }],
  },
  {
    match: /You are a technical validator checking a PRD for accuracy/,
    steps: [
      { tool: 'run', command: 'ls -t {artifacts}/prds/*.prd.md | head -1' },
      { tool: 'read', path: '{artifacts}/prds/shout.prd.md' },
      { tool: 'read', path: 'src/greet.js' },
      { tool: 'edit', path: '{artifacts}/prds/shout.prd.md', old: 'Extend `src/greet.js`.\n', new: `Extend \`src/greet.js\`.\n${prdNotes}` },
      { say: '## PRD Validated\n\n**File**: `shout.prd.md`\n**Corrections**: 0' },
    ],
  },
  { match: /You are a workflow design classifier/, steps: [{ say: JSON.stringify(intent) }] },
  {
    match: /You are an Archon workflow author/,
    steps: [{ tool: 'write', path: '{artifacts}/generated-workflow.yaml', content: generated }, { say: 'Wrote generated-workflow.yaml.' }],
  },
  {
    match: /You are a workflow installer/,
    steps: [
      { tool: 'read', path: '{artifacts}/generated-workflow.yaml' },
      { tool: 'run', command: 'mkdir -p .archon/workflows/' },
      { tool: 'write', path: '.archon/workflows/lint-and-test.yaml', content: generated },
      { say: 'Saved .archon/workflows/lint-and-test.yaml. Triggers: lint and test, check my change.' },
    ],
  },
  {
    match: /# Resolve Merge Conflicts/,
    steps: [
      { tool: 'run', command: 'gh pr view 1 --json number,title,headRefName,baseRefName,mergeable,mergeStateStatus' },
      { tool: 'run', command: 'git fetch -q origin main && git fetch -q origin shout && git checkout -q shout && git pull -q origin shout && git branch --show-current' },
      // The rebase stops at the conflict; the agent lists the conflicting files.
      { tool: 'run', command: 'git rebase origin/main || git diff --name-only --diff-filter=U' },
      { tool: 'read', path: 'README.md' },
      // Both sides added a line where the other did not change anything: keep both.
      { tool: 'write', path: 'README.md', content: readmeResolved },
      { tool: 'run', command: 'git add README.md && GIT_EDITOR=true git rebase --continue && git diff --check && bun run type-check && bun run test && bun run lint' },
      { tool: 'run', command: 'git push -q --force-with-lease origin shout && gh pr view 1 --json mergeable,mergeStateStatus' },
      {
        tool: 'write', path: '{artifacts}/../reviews/pr-1/conflict-resolution.md',
        content: '# Conflict Resolution: PR #1\n\n**Branch**: shout rebased onto main\n\nResolved 1 conflict in 1 file: `README.md` (SIMPLE_ADDITION, both lines kept).\n',
      },
      { tool: 'run', command: "gh pr comment 1 --body '## ✅ Conflicts Resolved\n\n**Rebased onto**: `main`\n**Conflicts resolved**: 1 in 1 file'" },
      { say: '## ✅ Conflicts Resolved\n\nPR #1 rebased onto main: README.md kept both additions. The PR is mergeable.' },
    ],
  },
  {
    match: /# Implement Plan/,
    steps: [
      { tool: 'read', path: 'plans/shout.md' },
      { tool: 'run', command: 'git status --short && git branch --show-current' },
      { tool: 'write', path: 'src/shout.js', content: shout },
      { tool: 'write', path: 'test/shout.test.js', content: shoutTest },
      { tool: 'run', command: 'bun run type-check && bun run lint && bun run test' },
      { tool: 'run', command: "git add src/shout.js test/shout.test.js && git commit -q -m 'feat: add shout()' && git log --oneline -1" },
      { tool: 'write', path: '{artifacts}/../reports/shout-report.md', content: '# Implementation Report: shout\n\n## Tasks Completed\n- src/shout.js\n- test/shout.test.js\n' },
      { say: '## Implementation Complete\n\nshout() added with its test; type-check, lint and tests pass.' },
    ],
  },
  {
    match: /# Create Pull Request/,
    steps: [
      // The pre-flight: the branch name's last number (of the run's id) is taken for an issue, and no open pull request names it.
      {
        tool: 'run',
        command: 'ISSUE_NUM=$(git branch --show-current | grep -oE "[0-9]+" | tail -1); echo "issue: ${ISSUE_NUM:-none}"; [ -z "$ISSUE_NUM" ] || gh pr list --repo acme/widget --search "Fixes #${ISSUE_NUM} OR Closes #${ISSUE_NUM}" --state open --json number,url,headRefName',
      },
      { tool: 'run', command: 'git status --short && git log --oneline main..HEAD' },
      { tool: 'run', command: 'ls -t {artifacts}/../reports/*-report.md | head -1' },
      { tool: 'run', command: 'git push -q -u origin HEAD' },
      { tool: 'write', path: '{artifacts}/pr-body.md', content: '## Summary\nAdds shout(name).\n\n## Validation\ntype-check, lint and tests pass.\n' },
      { tool: 'run', command: "gh pr create --repo acme/widget --title 'feat: add shout()' --body-file {artifacts}/pr-body.md --base main" },
      { tool: 'run', command: "gh pr view --repo acme/widget --json number -q '.number' > {artifacts}/.pr-number && gh pr view --repo acme/widget --json url -q '.url' > {artifacts}/.pr-url && cat {artifacts}/.pr-url" },
      { say: '## PR Created\n\nhttps://github.com/acme/widget/pull/2' },
    ],
  },
];

let home: TempHome;
let bench: ClaudeWorkflowBench;
let github: GitHubServer;
let runs: Record<string, string>;

beforeAll(async () => {
  home = await makeTempHome();
  let origin = '';
  const merges = (into: string, head: string) => {
    try {
      execFileSync('git', ['merge-tree', '--write-tree', `refs/heads/${into}`, `refs/heads/${head}`], { cwd: origin, stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  github = await startGitHubServer({
    repository: 'acme/widget', token, issues: [],
    branchExists: (b) => git(origin, 'branch', '--list', b).trim() !== '',
    pulls: [{ title: 'docs: say what widget does', body: 'One line in the README.', head: 'shout', base: 'main', draft: false }],
    mergeable: (pull) => merges(pull.base, pull.head),
  });
  home.defer(() => github.close());
  bench = await startClaudeWorkflowBench(home, scripts, {
    files: {
      ...upstreamProject(
        ['archon-resolve-conflicts', 'archon-feature-development', 'archon-workflow-builder', 'archon-interactive-prd'],
        ['archon-resolve-merge-conflicts', 'archon-implement', 'archon-create-pr'],
      ),
      'plans/shout.md': plan,
    },
    env: { PATH: pathWithGhStandIn(), GITHUB_API_URL: github.url, GH_TOKEN: token },
  });
  origin = bench.origin;
  // The pull request's branch, pushed; then main moves on in the same place of the README.
  const edit = (text: string, message: string) => {
    execFileSync('sh', ['-c', `printf '%s' "$1" > README.md`, 'sh', text], { cwd: bench.clone });
    git(bench.clone, 'commit', '-q', '-am', message);
  };
  git(bench.clone, 'checkout', '-q', '-b', 'shout');
  edit(readmeOnBranch, 'docs: say what widget does');
  git(bench.clone, 'push', '-q', 'origin', 'shout');
  git(bench.clone, 'checkout', '-q', 'main');
  git(bench.clone, 'branch', '-q', '-D', 'shout');
  edit(readmeOnMain, 'docs: how to run the tests');
  git(bench.clone, 'push', '-q', 'origin', 'main');
  expect(merges('main', 'shout')).toBe(false);

  const url = bench.server.url;
  runs = {
    'archon-resolve-conflicts': (await startRun(url, 'archon-resolve-conflicts', { codebaseId, message: '#1' })).runId,
    'archon-feature-development': (await startRun(url, 'archon-feature-development', { codebaseId, message: 'plans/shout.md' })).runId,
    'archon-workflow-builder': (await startRun(url, 'archon-workflow-builder', { codebaseId, message: 'a workflow that lints and then tests a change' })).runId,
    'archon-interactive-prd': (await startRun(url, 'archon-interactive-prd', { codebaseId, message: 'a shout() helper next to greet()' })).runId,
  };
}, 60_000);
afterAll(async () => {
  await home.close();
});

async function finished(name: string) {
  const done = await waitForRun(bench.server.url, runs[name]!, 'completed', { timeoutMs: 120_000 });
  expect(done.run.status, failures(done.events)).toBe('completed');
  expectDefaultsRow(name, done.run, done.events);
  return done;
}

const output = (events: Record<string, any>[], id: string) => events.find((e) => e.step_name === id && e.event_type === 'node_completed')?.data.node_output as string;
const artifactsOf = (runId: string) => join(home.paths.workspaces, 'acme', 'widget', 'artifacts', 'runs', runId);

it('the table covers every default workflow file, once, each node named as the file names it', () => {
  expect(defaultsOutcomes.map((row) => row.file).sort()).toEqual([...workflowFiles].sort());
  expect(workflowFiles).toHaveLength(21);
  const misnamed = defaultsOutcomes.flatMap((row) => {
    const nodes = (parse(readFileSync(join(defaults, 'workflows', row.file), 'utf8')) as { nodes: { id: string; include?: string }[] }).nodes;
    // An include node shows as the included nodes, renamed `<id>__<node>`; a loop's iterations as `<id>/body`.
    const fileIds = nodes.filter((n) => n.include === undefined).map((n) => n.id);
    const includes = nodes.filter((n) => n.include !== undefined).map((n) => n.id);
    const named = Object.keys(row.nodes).filter((id) => !id.includes('/') && !includes.some((inc) => id.startsWith(`${inc}__`)));
    const included = includes.filter((inc) => !Object.keys(row.nodes).some((id) => id.startsWith(`${inc}__`)));
    return named.sort().join() === fileIds.sort().join() && included.length === 0 ? [] : [`${row.file}: ${named.sort().join()} != ${fileIds.join()}`];
  });
  expect(misnamed).toEqual([]);
});

it('each row that does not run here says why; each that does names a test file that asserts it', () => {
  for (const row of defaultsOutcomes) {
    if (!row.here) {
      expect(row.reason.length, row.file).toBeGreaterThan(40);
      continue;
    }
    const test = join(fileURLToPath(new URL('.', import.meta.url)), row.test);
    expect(existsSync(test), row.file).toBe(true);
    const text = readFileSync(test, 'utf8');
    expect(text, row.file).toContain('expectDefaultsRow(');
    expect(text, row.file).toContain(`'${row.file.replace(/\.yaml$/, '')}'`);
  }
  const thisFile = defaultsOutcomes.filter((row) => row.here && row.test === 'defaults-server.test.ts').map((row) => row.file.replace(/\.yaml$/, ''));
  expect(thisFile.sort()).toEqual(Object.keys(runs).sort());
});

it("the README's status section gives the count of default workflows that run here", () => {
  const status = readFileSync(readme, 'utf8').split('\n## Status\n')[1]!.split('\n## ')[0]!.replace(/\s+/g, ' ');
  const said = /(\d+) of its (\d+) default workflows run end to end here/.exec(status);
  expect(said?.slice(1).map(Number)).toEqual([defaultsOutcomes.filter((row) => row.here).length, workflowFiles.length]);
  const unscriptedCount = defaultsOutcomes.filter((row) => !row.here && row.blocker === 'unscripted').length;
  expect(Number(/for the other (\d+) no test scripts/.exec(status)?.[1])).toBe(unscriptedCount);
});

it('archon-resolve-conflicts rebases the pull request\'s branch onto main, keeps both sides, pushes it, and comments', async () => {
  const { run, events } = await finished('archon-resolve-conflicts');
  expect(output(events, 'resolve')).toContain('Conflicts Resolved');
  // The branch on origin: main's commit, then the pull request's, rebased, with both lines of the README.
  const origin = bench.origin;
  expect(git(origin, 'log', '--format=%s', 'main..shout').trim()).toBe('docs: say what widget does');
  expect(git(origin, 'merge-base', 'main', 'shout').trim()).toBe(git(origin, 'rev-parse', 'main').trim());
  expect(git(origin, 'show', 'shout:README.md')).toBe(readmeResolved);
  // gh saw the conflict before, and a mergeable pull request after.
  const prViews = bench.messages.toolResults.filter((r) => r.tool === 'Bash' && /gh pr view 1/.test(JSON.stringify(r.input))).map((r) => r.output);
  expect(prViews[0]).toContain('"mergeable":"CONFLICTING"');
  expect(prViews.at(-1)).toContain('"mergeable":"MERGEABLE"');
  expect(github.pullComments).toEqual([{ number: 1, body: expect.stringContaining('Conflicts resolved**: 1 in 1 file') }]);
  const report = join(artifactsOf(run.id as string), '..', 'reviews', 'pr-1', 'conflict-resolution.md');
  expect(readFileSync(report, 'utf8')).toContain('# Conflict Resolution: PR #1');
}, 150_000);

it('archon-feature-development implements the plan in a commit on the run\'s branch, pushes it, and opens a pull request into main', async () => {
  const { run, events } = await finished('archon-feature-development');
  const worktree = run.working_path as string;
  const branch = `cairn/archon-feature-development-${(run.id as string).slice(0, 8)}`;
  expect(readFileSync(join(worktree, 'src', 'shout.js'), 'utf8')).toBe(shout);
  expect(git(worktree, 'log', '--format=%s', `main..${branch}`).trim()).toBe('feat: add shout()');
  expect(git(worktree, 'show', '--name-only', '--format=', branch).trim().split('\n').sort()).toEqual(['src/shout.js', 'test/shout.test.js']);
  expect(git(bench.origin, 'rev-parse', `refs/heads/${branch}`).trim()).toBe(git(worktree, 'rev-parse', branch).trim());
  // The pre-flight found no open pull request naming the branch's number (the conflicting one, #1, names none).
  const issueNumber = branch.match(/[0-9]+/g)?.at(-1);
  const preflight = bench.messages.toolResults.find((r) => JSON.stringify(r.input).includes('ISSUE_NUM='))?.output.trim();
  expect(preflight).toBe(issueNumber === undefined ? 'issue: none' : `issue: ${issueNumber}\n[]`);
  expect(github.pulls.find((p) => p.head === branch)).toMatchObject({ number: 2, title: 'feat: add shout()', base: 'main', draft: false });
  expect(output(events, 'verify-pr-base')).toBe('PR base verified: main');
  const artifacts = artifactsOf(run.id as string);
  expect(readFileSync(join(artifacts, '.pr-url'), 'utf8')).toBe('https://github.com/acme/widget/pull/2\n');
  expect(readFileSync(join(artifacts, '..', 'reports', 'shout-report.md'), 'utf8')).toContain('# Implementation Report: shout');
}, 150_000);

it('archon-workflow-builder writes the workflow it generated into the live checkout, where it loads', async () => {
  const { run, events } = await finished('archon-workflow-builder');
  // `worktree: enabled: false`: the run works in the user's checkout, so the new workflow reaches their .archon/workflows.
  expect(run.working_path).toBe(bench.clone);
  expect(JSON.parse(output(events, 'extract-intent'))).toEqual(intent);
  expect(output(events, 'validate-yaml')).toBe('VALID');
  expect(readFileSync(join(artifactsOf(run.id as string), 'generated-workflow.yaml'), 'utf8')).toBe(generated);
  expect(readFileSync(join(bench.clone, '.archon', 'workflows', 'lint-and-test.yaml'), 'utf8')).toBe(generated);
  // The generate node is offered neither Edit nor Bash (its denied_tools); the classifier no tool at all (allowed_tools: []), only the CLI's structured answer.
  const offered = (marker: string) =>
    new Set(bench.messages.requests.filter((r) => JSON.stringify(r.body.messages).includes(marker)).flatMap((r) => (r.body.tools ?? []).map((t: { name: string }) => t.name)));
  expect(['Edit', 'Bash'].filter((t) => offered('You are an Archon workflow author').has(t))).toEqual([]);
  expect([...offered('You are a workflow design classifier')]).toEqual(['StructuredOutput']);
  const listed = (await (await fetch(`${bench.server.url}/api/workflows?cwd=${encodeURIComponent(bench.clone)}`)).json()) as { workflows: { workflow: { name: string } }[] };
  expect(listed.workflows.map((w) => w.workflow.name)).toContain('lint-and-test');
}, 150_000);

it('archon-interactive-prd asks at its three gates, and writes and validates a PRD from the answers', async () => {
  const url = bench.server.url;
  const runId = runs['archon-interactive-prd']!;
  for (const [i, answer] of gateAnswers.entries()) {
    const paused = await waitForRun(url, runId, 'paused', { until: (events) => asks(events) === i + 1, timeoutMs: 120_000 });
    expect(paused.run.status, failures(paused.events)).toBe('paused');
    await answerGate(url, runId, { approve: answer });
  }
  const { run, events } = await finished('archon-interactive-prd');
  expect(asks(events)).toBe(3);
  // capture_response: each answer is its gate's output, and reaches the prompts after it.
  expect(gateAnswers.map((_, i) => output(events, ['foundation-gate', 'deepdive-gate', 'scope-gate'][i]!))).toEqual(gateAnswers);
  const generateRequest = bench.messages.requests.find((r) => JSON.stringify(r.body.messages).includes("You are generating a PRD from the user's guided inputs"));
  for (const answer of gateAnswers) expect(JSON.stringify(generateRequest?.body.messages)).toContain(answer);
  expect(readFileSync(join(artifactsOf(run.id as string), 'prds', 'shout.prd.md'), 'utf8')).toBe(prd + prdNotes);
  expect(output(events, 'validate')).toContain('## PRD Validated');
}, 150_000);

it("the runs in worktrees left the user's checkout alone, and no tool call was refused", async () => {
  await Promise.all(Object.keys(runs).map((name) => waitForRun(bench.server.url, runs[name]!, 'completed', { timeoutMs: 120_000 })));
  // Only archon-workflow-builder, which runs in the checkout, wrote there: the workflow it saved.
  expect(checkoutState(bench.clone)).toMatchObject({ branch: 'main', status: '?? .archon/workflows/lint-and-test.yaml\n' });
  const refused = bench.messages.toolResults.filter((r) => r.isError).map((r) => `${r.tool}: ${r.output}`);
  expect(refused).toEqual([]);
}, 150_000);
