import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { piAdapter } from '../../../../src/worker/providers/pi/adapter.js';
import { chatCompletionsAgent, offeredToolNames, piVocabulary } from '../../../helpers/chat-completions-agent.js';
import { startOpenAiServer } from '../../../helpers/openai-server.js';
import { agentTask, runAttempt } from '../agent-harness.js';
import { cliTestSetup } from '../common/cli-test-setup.js';
import { scriptedWorkspace } from '../chat-cli-permission-cases.js';

/**
 * The node options Pi's registry entry declares, each proven on the request the real Pi CLI sends:
 * `allowed_tools` / `denied_tools` (the request's tool list), `effort` / `thinking` (its
 * `reasoning_effort`), and the `pi:` block (a project extension's tool and flag values). What Pi
 * cannot take fails the node before Pi starts, naming the key.
 */

const greeterExtension = new URL('../../../fixtures/pi/greeter-extension.mjs', import.meta.url).pathname;

const setup = cliTestSetup({ start: startOpenAiServer });

/** One answer-only session; resolves to the model's first request body. */
async function firstRequest(overrides: Parameters<typeof agentTask>[1]) {
  const server = await setup.start(chatCompletionsAgent([{ steps: [{ say: 'ok' }] }], { vocabularies: [piVocabulary] }).reply);
  const task = agentTask(setup.dir(), { provider: 'pi', model: 'pi-test', connection: { baseUrl: server.url, apiKey: 'k', env: { HOME: setup.dir() } }, ...overrides });
  const { outcome } = await runAttempt(piAdapter, task);
  expect(outcome.status).toBe('completed');
  return server.requests[0]!.body;
}

describe('pi node options (real Pi CLI)', () => {
  it('allowed_tools picks tools (any case), denied_tools removes them; effort xhigh reaches the request as reasoning_effort', async () => {
    const body = await firstRequest({ effort: 'xhigh', options: { permissions: 'workspace', extraDirs: [], allowedTools: ['Read', 'bash', 'ls'], deniedTools: ['BASH'] } });
    expect(offeredToolNames(body)).toEqual(['read', 'ls']);
    expect(body.reasoning_effort).toBe('xhigh');
  });

  it("allowed_tools [] offers no tool; thinking: disabled wins over effort: no reasoning_effort, the system prompt stays a system message", async () => {
    const body = await firstRequest({ effort: 'high', options: { permissions: 'full', extraDirs: [], allowedTools: [], thinking: 'disabled' } });
    expect(body.tools ?? []).toEqual([]);
    expect(body.reasoning_effort).toBeUndefined();
    expect(body.messages[0].role).toBe('system');
  });

  it("pi.enableExtensions loads the project's extensions: their tool can be allowed by name and extensionFlags reach them, a hostile value as one value", async () => {
    const { repo } = scriptedWorkspace(setup.dir());
    const hostile = 'hi --tools=write -p "$(touch pwned)" --no-tools';
    mkdirSync(join(repo, '.pi', 'extensions'), { recursive: true });
    copyFileSync(greeterExtension, join(repo, '.pi', 'extensions', 'greeter.ts'));
    const body = await firstRequest({
      cwd: repo,
      options: {
        permissions: 'workspace',
        extraDirs: [],
        allowedTools: ['read', 'greet'],
        thinking: { type: 'enabled' },
        pi: { enableExtensions: true, extensionFlags: { greeting: hostile, loud: true, quiet: false } },
      },
    });
    expect(offeredToolNames(body)).toEqual(['read', 'greet']);
    expect(JSON.stringify(body.messages)).toContain(JSON.stringify(`GREETING=${hostile} LOUD=true`).slice(1, -1));
    expect(existsSync(join(repo, 'pwned'))).toBe(false);
    // thinking enabled without an effort: Pi's own default level.
    expect(body.reasoning_effort).toBe('medium');
  });

  it.each([
    [{ allowedTools: ['Read', 'Glob'] }, undefined, "allowed_tools names 'Glob', which Pi does not have"],
    [{ deniedTools: ['read,bash'] }, undefined, "denied_tools names 'read,bash'"],
    [{ thinking: { type: 'enabled', budgetTokens: 2000 } }, undefined, 'thinking.budgetTokens'],
    [{}, 'ultra' as const, "effort 'ultra'"],
    [{ pi: { interactive: true } }, undefined, 'pi.interactive'],
    [{ pi: { extensionFlags: { plan: true } } }, undefined, 'pi.extensionFlags: extensions are off'],
    [{ pi: { enableExtensions: true, extensionFlags: { 'tools bash': 'x' } } }, undefined, "'tools bash' is not a flag name"],
    [{ pi: { enableExtensions: true, extensionFlags: { plan: 3 } } }, undefined, 'pi.extensionFlags.plan'],
  ])('fails the node before Pi starts when it cannot take %j (effort %s)', async (options, effort, message) => {
    const server = await setup.start(chatCompletionsAgent([{ steps: [{ say: 'ok' }] }], { vocabularies: [piVocabulary] }).reply);
    const task = agentTask(setup.dir(), {
      provider: 'pi',
      model: 'pi-test',
      ...(effort ? { effort } : {}),
      connection: { baseUrl: server.url, apiKey: 'k', env: { HOME: setup.dir() } },
      options: { permissions: 'workspace', extraDirs: [], ...options },
    });
    const { outcome } = await runAttempt(piAdapter, task);
    expect(outcome.status).toBe('failed');
    expect(outcome.failureKind).toBe('config');
    expect(outcome.error).toContain(message);
    expect(server.requests).toHaveLength(0);
  });
});
