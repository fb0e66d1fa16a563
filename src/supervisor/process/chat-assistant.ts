import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { AssistantReply, AssistantStatus, ChatAssistant } from '../../conversations/chat/assistant.js';
import type { Settings } from '../../shared/config.js';
import { describeUnknownProvider } from '../../shared/providers/registry.js';
import type { StoreConfig } from '../../store/store-config.js';
import type { WorkerPool } from '../../worker/pool/pool.js';
import { providersWithAdapter } from '../../worker/providers/available.js';
import { resolveModelBinding } from '../../workflow/model-binding.js';

/** Text is streamed to the conversation in batches: at this many characters, or this long after the first waits. */
export const CHAT_FLUSH = { chars: 1024, ms: 200 } as const;
/**
 * A chat answer that stops streaming for this long is stopped (the idle watchdog of AI nodes is
 * 30 minutes, for agents at work; a chat answer that stalls this long is broken).
 */
export const CHAT_IDLE_TIMEOUT_MS = 120_000;

/**
 * The default assistant for chat turns: the provider `defaultAssistant` / `CAIRN_DEFAULT_ASSISTANT`
 * names (else `claude`), with the model of `assistants.<id>.model`, resolved by the one binding
 * module AI nodes use. Each call runs in a worker thread of the pool through that provider's
 * adapter, under the AI nodes' first-event watchdog and a chat idle watchdog, so the
 * supervisor's event loop and claim loop never wait on a provider.
 */
export function createChatAssistant(deps: { pool: Pick<WorkerPool, 'runChat'>; storeConfig: StoreConfig; settings: Settings }): ChatAssistant {
  const { providers } = deps.settings;
  const binding = resolveModelBinding({
    node: {},
    workflow: {},
    layers: { install: { defaultAssistant: providers.defaultAssistant, assistants: providers.assistants } },
  });
  const provider = binding.ok ? binding.provider : (providers.defaultAssistant ?? 'claude');
  const connection = binding.ok ? (providers.connections[binding.provider] ?? {}) : {};
  const secrets = [connection.apiKey].filter((s): s is string => s !== undefined);

  function status(): AssistantStatus {
    if (!binding.ok) return { ready: false, provider, reason: 'unknown_provider', detail: describeUnknownProvider(provider) };
    if (!providersWithAdapter.includes(binding.provider)) {
      return { ready: false, provider, reason: 'no_adapter', detail: `it has no adapter in this version of Cairn (available: ${providersWithAdapter.join(', ')})` };
    }
    if (!providers.configured[binding.provider]) return { ready: false, provider, reason: 'not_configured' };
    return { ready: true, provider, ...(binding.model !== undefined ? { model: binding.model } : {}) };
  }

  return {
    secrets,
    status,
    async ask(call): Promise<AssistantReply> {
      if (!binding.ok) throw new Error(binding.error);
      const reply = await deps.pool.runChat({
        kind: 'chat',
        store: deps.storeConfig,
        conversationId: call.conversationId,
        turnId: call.turnId,
        provider: binding.provider,
        ...(binding.model !== undefined ? { model: binding.model } : {}),
        prompt: call.prompt,
        systemPrompt: call.systemPrompt,
        cwd: call.cwd ?? deps.settings.home,
        connection,
        firstEventTimeoutMs: providers.firstEventTimeoutMs,
        idleTimeoutMs: Math.min(providers.idleTimeoutMs, CHAT_IDLE_TIMEOUT_MS),
        scratchDir: join(deps.settings.home, 'tmp', 'chat', randomUUID()),
        flush: { ...CHAT_FLUSH },
      });
      return reply;
    },
  };
}
