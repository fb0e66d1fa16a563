import { describe } from 'vitest';
import { copilotAdapter } from '../../../../src/worker/providers/copilot/adapter.js';
import { copilotVocabulary, type ChatCompletionsAgent } from '../../../helpers/chat-completions-agent.js';
import { startOpenAiServer } from '../../../helpers/openai-server.js';
import { cliTestSetup, scriptedConnection } from '../common/cli-test-setup.js';
import { chatCliPermissionCases } from '../chat-cli-permission-cases.js';

/**
 * The permission levels on the real Copilot CLI: `read_only` denies its `write` and `shell` tools;
 * `workspace` lets every tool run with file access limited to the worktree and the artifacts
 * folder (`--add-dir`, no temporary folder); `full` turns path verification off. The model id is
 * one Copilot has no tuned tool set for, so it offers `view`, `create`, `edit` and `bash`.
 */

const setup = cliTestSetup({
  start: (agent: ChatCompletionsAgent) => startOpenAiServer(agent.reply),
  task: (server, dir) => ({ provider: 'copilot', model: 'cp-test', connection: scriptedConnection(server, 'k', dir) }),
});

describe('copilot permissions (real Copilot CLI, scripted sessions in a git repository)', () => {
  chatCliPermissionCases({ label: 'Copilot', adapter: copilotAdapter, vocabulary: copilotVocabulary, task: setup.task, dir: setup.dir });
});
