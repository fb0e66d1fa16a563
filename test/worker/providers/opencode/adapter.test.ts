import { describe } from 'vitest';
import { OPENCODE_NOT_FOUND, opencodeAdapter } from '../../../../src/worker/providers/opencode/adapter.js';
import { chatCliAdapterCases } from '../chat-cli-cases.js';

/**
 * The real OpenCode CLI (npm package opencode-ai, a devDependency whose native binary runs here)
 * driven by the real adapter, pointed at a local server that speaks the Chat Completions API.
 */

describe('opencode adapter (real OpenCode CLI)', () => {
  chatCliAdapterCases({
    label: 'OpenCode', provider: 'opencode', adapter: opencodeAdapter, model: 'oc-test', secret: 'sk-opencode-test-SECRET-4242',
    notFound: OPENCODE_NOT_FOUND,
    sessionId: /^ses_/,
    // The adapter must never write to $HOME/.config or $HOME/.local.
    homeDirs: ['.config', '.local', '.cache'],
    streamsDeltas: false,
    systemPrompt: true,
  });
});
