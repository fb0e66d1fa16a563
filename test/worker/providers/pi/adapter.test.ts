import { describe } from 'vitest';
import { PI_NOT_FOUND, piAdapter } from '../../../../src/worker/providers/pi/adapter.js';
import { chatCliAdapterCases } from '../chat-cli-cases.js';

/**
 * The real Pi coding agent (npm package @mariozechner/pi-coding-agent, a devDependency that runs on
 * Node 20) driven by the real adapter, pointed at a local server that speaks the Chat Completions API.
 */

describe('pi adapter (real Pi CLI)', () => {
  chatCliAdapterCases({
    label: 'Pi', provider: 'pi', adapter: piAdapter, model: 'pi-test', secret: 'sk-pi-test-SECRET-4242',
    notFound: PI_NOT_FOUND,
    sessionId: /^[0-9a-f-]{36}$/,
    // The adapter must never write to $HOME/.pi.
    homeDirs: ['.pi'],
    streamsDeltas: true,
    systemPrompt: true,
  });
});
