import { createRequire } from 'node:module';
import type { AgentScript } from '../helpers/agent-script.js';
import { scriptedMessages, startAnthropicServer } from '../helpers/anthropic-server.js';
import { chatCompletionsAgent, piVocabulary } from '../helpers/chat-completions-agent.js';
import { claudeCliEnv, pinnedClaudeCli } from '../helpers/claude-cli.js';
import { startOpenAiServer, type OpenAiServer } from '../helpers/openai-server.js';
import { agentReplies, startResponsesServer } from '../helpers/responses-server.js';

/**
 * Local stand-ins for every vendor the upstream's end-to-end corpus calls, each answering the
 * corpus' prompts as a model that does what it is asked would: Claude Code's Messages API, Codex's
 * Responses API, and one Chat Completions server for Pi and Copilot. The real CLIs talk to them.
 * Started once for a test file; `serverEnv` and `configYaml` point `cairn serve` at them.
 */

const require = createRequire(import.meta.url);

/** The prompt of e2e-copilot-abort: its answer starts streaming and never ends (the test cancels it). */
export const ENDLESS_PROMPT = /Count slowly from 1 to 200/;

const claudeScripts: AgentScript[] = [
  { match: /What is 2\+2/, steps: [{ say: '4' }] },
  { match: /Say 'claude-ok'/, steps: [{ say: 'claude-ok' }] },
  { match: /Classify the sentiment of this text/, steps: [{ say: '{"sentiment":"positive"}' }] },
  { match: /Classify this text into a single category/, steps: [{ say: '{"category":"greeting"}' }] },
];

const codexScripts: AgentScript[] = [
  { match: /What is 2\+2/, steps: [{ say: '4' }] },
  { match: /Classify this input as 'math' or 'text'/, steps: [{ say: '{"category":"math"}' }] },
  { match: /Say 'codex-ok'/, steps: [{ say: 'codex-ok' }] },
];

/** Pi's prompts (archon-test-pi's verify quotes the other answers, so it comes first); Copilot's is ENDLESS_PROMPT. */
const chatScripts: AgentScript[] = [
  { match: /The extension model node said/, steps: [{ say: 'Pi provider verified ✅ (extension + ollama)' }] },
  { match: /Who won the 1984 Major League Baseball World Series/, steps: [{ say: 'The Detroit Tigers won the 1984 World Series.' }] },
  { match: /What is 2\+2/, steps: [{ say: '4' }] },
  { match: /Reply with exactly the single word: PONG/, steps: [{ say: 'PONG' }] },
  { match: /Classify the sentiment of this sentence/, steps: [{ say: '{"sentiment":"positive","reasoning":"the speaker enjoyed it"}' }] },
  { match: /what is the main topic of the text above/, steps: [{ say: 'Archon, a platform that runs AI coding assistants through workflows.' }] },
];

export interface CorpusStandIns {
  /** The Chat Completions server (Pi and Copilot): its requests, to see the endless one arrive and close. */
  chat: OpenAiServer;
  /** The environment of `cairn serve`: Claude Code and Codex pointed at their stand-ins. */
  serverEnv: Record<string, string>;
  /** config.yaml: Pi and Copilot pointed at the Chat Completions stand-in. */
  configYaml: string;
  close(): Promise<void>;
}

/** Starts the stand-ins; `cliHome` is the HOME the CLIs keep their settings in. */
export async function startCorpusStandIns(cliHome: string): Promise<CorpusStandIns> {
  const claude = await startAnthropicServer(scriptedMessages(claudeScripts).reply);
  const codex = await startResponsesServer(agentReplies(codexScripts));
  const agent = chatCompletionsAgent(chatScripts, { vocabularies: [piVocabulary] });
  const chat = await startOpenAiServer((req, index) => {
    const asked = JSON.stringify(req.body?.messages ?? []);
    return ENDLESS_PROMPT.test(asked) ? { kind: 'stream', deltas: [], stallAfterFirst: true } : agent.reply(req, index);
  });
  return {
    chat,
    serverEnv: {
      ...claudeCliEnv(claude.url, cliHome),
      CLAUDE_BIN_PATH: pinnedClaudeCli,
      CODEX_BIN_PATH: require.resolve('@openai/codex/bin/codex.js'),
      OPENAI_BASE_URL: codex.url,
      OPENAI_API_KEY: 'sk-codex-test',
    },
    configYaml: [
      'assistants:',
      ...['pi', 'copilot'].flatMap((id) => [`  ${id}:`, `    baseUrl: ${chat.url}`, `    apiKey: sk-${id}-test`]),
      '',
    ].join('\n'),
    async close() {
      await Promise.all([claude.close(), codex.close(), chat.close()]);
    },
  };
}
