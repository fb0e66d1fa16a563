import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { piAdapter } from '../../../../src/worker/providers/pi/adapter.js';
import { PI_GUARD_REFUSAL } from '../../../../src/worker/providers/pi/workspace-guard.js';
import { chatCompletionsAgent, offeredToolNames, piVocabulary, type ChatCompletionsAgent } from '../../../helpers/chat-completions-agent.js';
import { startOpenAiServer } from '../../../helpers/openai-server.js';
import { runAttempt } from '../agent-harness.js';
import { cliTestSetup, scriptedConnection } from '../common/cli-test-setup.js';
import { chatCliPermissionCases, scriptedWorkspace, toolResults } from '../chat-cli-permission-cases.js';

/**
 * The permission levels on the real Pi CLI: `read_only` offers read, grep, find and ls alone, so
 * Pi answers any other call `Tool <name> not found`; `workspace` loads Cairn's guard extension,
 * which refuses a write or edit outside the worktree and the artifacts folder; `full` offers Pi's
 * default tools with no guard.
 */

const greeterExtension = new URL('../../../fixtures/pi/greeter-extension.mjs', import.meta.url).pathname;

const setup = cliTestSetup({
  start: (agent: ChatCompletionsAgent) => startOpenAiServer(agent.reply),
  task: (server, dir) => ({ provider: 'pi', model: 'pi-test', connection: scriptedConnection(server, 'k', dir) }),
});

describe('pi permissions (real Pi CLI, scripted sessions in a git repository)', () => {
  chatCliPermissionCases({ label: 'Pi', adapter: piAdapter, vocabulary: piVocabulary, task: setup.task, dir: setup.dir });

  it('workspace: the guard follows relative paths, symbolic links and dangling links out of the worktree; the repository\'s own Pi extensions stay off', async () => {
    const { repo, artifacts, outside } = scriptedWorkspace(setup.dir());
    symlinkSync(outside, join(repo, 'link'));
    symlinkSync(join(outside, 'not-yet.md'), join(repo, 'dangling.md'));
    // A project extension that would add a tool: not loaded unless the node enables extensions.
    mkdirSync(join(repo, '.pi', 'extensions'), { recursive: true });
    copyFileSync(greeterExtension, join(repo, '.pi', 'extensions', 'greeter.ts'));
    const agent = chatCompletionsAgent(
      [
        {
          steps: [
            { tool: 'write', path: '../outside/relative.md', content: 'x' },
            { tool: 'write', path: 'link/through-link.md', content: 'x' },
            { tool: 'write', path: 'dangling.md', content: 'x' },
            { tool: 'edit', path: `${outside}/../repo/README.md`, old: 'small', new: 'tiny' },
            { say: 'done' },
          ],
        },
      ], { vocabularies: [piVocabulary] });
    const task = await setup.task(agent, { cwd: repo, options: { permissions: 'workspace', extraDirs: [artifacts] } });
    const { outcome, chunks } = await runAttempt(piAdapter, task);
    expect(outcome.status).toBe('completed');
    expect(toolResults(chunks).map((r) => r.refused === true)).toEqual([true, true, true, false]);
    expect(agent.toolResults[0]!.content).toContain(PI_GUARD_REFUSAL);
    for (const f of ['relative.md', 'through-link.md', 'not-yet.md']) expect(existsSync(join(outside, f))).toBe(false);
    // A path that leaves and comes back is inside: the edit ran.
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('widget: a tiny tool\n');
    expect(offeredToolNames(setup.server().requests[0]!.body)).toEqual(['read', 'bash', 'edit', 'write']);
    expect(JSON.stringify(setup.server().requests[0]!.body.messages)).not.toContain('GREETING=');
  });
});
