import { afterEach, beforeEach, describe } from 'vitest';
import { copilotAdapter } from '../../../../src/worker/providers/copilot/adapter.js';
import { copilotVocabulary, type ChatCompletionsAgent } from '../../../helpers/chat-completions-agent.js';
import { startOpenAiServer, type OpenAiServer } from '../../../helpers/openai-server.js';
import { agentTask, scratch } from '../agent-harness.js';
import { chatCliPermissionCases } from '../chat-cli-permission-cases.js';

/**
 * The permission levels on the real Copilot CLI: `read_only` denies its `write` and `shell` tools;
 * `workspace` lets every tool run with file access limited to the worktree and the artifacts
 * folder (`--add-dir`, no temporary folder); `full` turns path verification off. The model id is
 * one Copilot has no tuned tool set for, so it offers `view`, `create`, `edit` and `bash`.
 */

let server: OpenAiServer | undefined;
let dir: ReturnType<typeof scratch>;
beforeEach(() => {
  dir = scratch();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  dir.cleanup();
});

async function copilotTask(agent: ChatCompletionsAgent, overrides: Parameters<typeof agentTask>[1] = {}) {
  server = await startOpenAiServer(agent.reply);
  return agentTask(dir.dir, { provider: 'copilot', model: 'cp-test', connection: { baseUrl: server.url, apiKey: 'k', env: { HOME: dir.dir } }, ...overrides });
}

describe('copilot permissions (real Copilot CLI, scripted sessions in a git repository)', () => {
  chatCliPermissionCases({ label: 'Copilot', adapter: copilotAdapter, vocabulary: copilotVocabulary, task: copilotTask, dir: () => dir.dir });
});
