import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startAnthropicServer, startScriptedClaudeServer, type AnthropicServer } from '../helpers/anthropic-server.js';
import { claudeCliEnv, pinnedClaudeCli } from '../helpers/claude-cli.js';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';
import { assertBuilt, runCli, userCliEnv } from './cli-process.js';

/**
 * `cairn workflow run` shows what its agents do while they work, through the built CLI against
 * the real server: the real Claude Code CLI playing a scripted agent (tool lines, the refused
 * warning, as docs/cli.md shows them), and the `anthropic` adapter for text (`--verbose`, `--quiet`).
 */

const cliDoc = readFileSync(fileURLToPath(new URL('../../docs/cli.md', import.meta.url)), 'utf8');

let home: TempHome;
let root: string;
let messages: AnthropicServer | undefined;
beforeAll(assertBuilt);
beforeEach(async () => {
  home = await makeTempHome();
  root = await realpath(await mkdtemp(join(tmpdir(), 'cairn-cli-activity-')));
  home.defer(() => rm(root, { recursive: true, force: true }));
});
afterEach(async () => {
  await home.close();
  await messages?.close();
  messages = undefined;
});

const toolsWorkflow = `name: tools
description: a node that works, then a read-only one whose every call is refused
provider: claude
model: claude-sonnet-4-5
nodes:
  - id: work
    prompt: "WORK-TASK: write notes.txt and show it"
  - id: look
    depends_on: [work]
    permissions: read_only
    prompt: "LOOK-TASK: change notes.txt"
`;

/** Durations, the run id and the project's folder as the docs write them. */
function normalise(text: string, project: string): string {
  return text
    .replaceAll(project, '/home/ada/widget')
    .replace(/^Run \S+ of workflow/gm, 'Run <id> of workflow')
    .replace(/\b\d+(\.\d+)?(ms|s)\b/g, '<t>');
}

describe('cairn workflow run shows agent work', () => {
  it('prints one line per tool call with its outcome and duration, the text shortened, and warns about a node whose every call was refused (as docs/cli.md shows)', async () => {
    const server = await startScriptedClaudeServer([
      { match: /WORK-TASK/, steps: [{ tool: 'write', path: 'notes.txt', content: 'from the agent\n' }, { tool: 'run', command: 'cat notes.txt' }, { say: 'Wrote notes.txt and showed it.' }] },
      { match: /LOOK-TASK/, steps: [{ tool: 'write', path: 'other.txt', content: 'not allowed\n' }, { tool: 'run', command: 'rm notes.txt' }, { say: 'I could not change anything.' }] },
    ]);
    messages = server;
    await startServer(home, { ...claudeCliEnv(server.url, join(root, 'cli-home')), CLAUDE_BIN_PATH: pinnedClaudeCli });
    await writeHomeWorkflow(home, 'tools', toolsWorkflow);
    const project = join(root, 'widget');
    await mkdir(project);

    const { code, stdout, stderr } = await runCli(['workflow', 'run', 'tools', '--output', 'none'], { env: userCliEnv(home.home), cwd: project });
    expect(code, stderr).toBe(0);
    const shown = normalise(stdout, project);
    expect(shown).toMatch(/^tool {5}work Write \/home\/ada\/widget\/notes\.txt ok <t>$/m);
    expect(shown).toMatch(/^tool {5}work Bash cat notes\.txt ok <t>$/m);
    expect(shown).toMatch(/^says {5}work Wrote notes\.txt and showed it\.$/m);
    expect(shown).toMatch(/^tool {5}look Write \/home\/ada\/widget\/other\.txt refused <t>$/m);
    expect(shown).toMatch(/^done {5}look \(<t>\) ⚠ all 2 tool calls were refused$/m);

    // The example in docs/cli.md is this run, line for line.
    const example = /```\n(Run <id> of workflow tools started\.\n[\s\S]*?)```/.exec(normalise(cliDoc, project))?.[1];
    expect(example, 'docs/cli.md has the agent activity example').toBeDefined();
    expect(shown.trimEnd().split('\n').slice(0, example!.trimEnd().split('\n').length)).toEqual(example!.trimEnd().split('\n'));

    const quiet = await runCli(['workflow', 'run', 'tools', '--quiet', '--output', 'none'], { env: userCliEnv(home.home), cwd: project });
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).not.toMatch(/^(tool|says) /m);
    // Quiet hides the work, not the warning.
    expect(normalise(quiet.stdout, project)).toMatch(/^done {5}look \(<t>\) ⚠ all 2 tool calls were refused$/m);
  });

  it('--verbose shows the whole text and the thinking; by default one shortened line', async () => {
    const long = `First line of the answer.\nSecond line, ${'and more '.repeat(20)}to the end.`;
    messages = await startAnthropicServer(() => ({ kind: 'stream', blocks: [{ type: 'thinking', thinking: 'Considering it.' }, { type: 'text', text: long }] }));
    await startServer(home, { ANTHROPIC_BASE_URL: messages.url, ANTHROPIC_API_KEY: 'sk-ant-test' });
    await writeHomeWorkflow(home, 'says', 'name: says\ndescription: one answer\nprovider: anthropic\nmodel: claude-test\nnodes:\n  - id: answer\n    prompt: "say it"\n');

    const plain = await runCli(['workflow', 'run', 'says', '--output', 'none'], { env: userCliEnv(home.home), cwd: root });
    expect(plain.code, plain.stderr).toBe(0);
    const says = plain.stdout.split('\n').filter((line) => line.startsWith('says '));
    expect(says).toHaveLength(1);
    expect(says[0]!.length).toBeLessThanOrEqual('says     answer '.length + 120);
    expect(says[0]).toMatch(/^says {5}answer First line of the answer\. Second line, and more .*…$/);
    expect(plain.stdout).not.toContain('Considering it.');

    const verbose = await runCli(['workflow', 'run', 'says', '--verbose', '--output', 'none'], { env: userCliEnv(home.home), cwd: root });
    expect(verbose.code, verbose.stderr).toBe(0);
    expect(verbose.stdout).toContain('thinks   answer\n    Considering it.\n');
    expect(verbose.stdout).toContain(`says     answer\n${long.split('\n').map((line) => `    ${line}`).join('\n')}\n`);

    const both = await runCli(['workflow', 'run', 'says', '--verbose', '--quiet'], { env: userCliEnv(home.home), cwd: root });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--quiet and --verbose cannot be used together');
  });
});
