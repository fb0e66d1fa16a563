import { describe } from 'vitest';
import { COPILOT_NOT_FOUND, copilotAdapter } from '../../../../src/worker/providers/copilot/adapter.js';
import { chatCliAdapterCases } from '../chat-cli-cases.js';

/**
 * The real GitHub Copilot CLI (npm package @github/copilot, a devDependency whose native binary
 * runs here) with a custom model provider, driven by the real adapter, pointed at a local server that speaks the Chat Completions API.
 */

describe('copilot adapter (real GitHub Copilot CLI)', () => {
  chatCliAdapterCases({
    label: 'Copilot', provider: 'copilot', adapter: copilotAdapter, model: 'cp-test', secret: 'sk-copilot-test-SECRET-4242',
    notFound: COPILOT_NOT_FOUND,
    sessionId: /^[0-9a-f-]{36}$/,
    // The adapter must never write to $HOME/.copilot.
    homeDirs: ['.copilot'],
    streamsDeltas: true,
    systemPrompt: false,
  });
});
