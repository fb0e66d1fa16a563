import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { AssistantReply, AssistantStatus, ChatAssistant, TurnAssistant } from '../../conversations/chat/assistant.js';
import type { CredentialSource } from '../../credentials/credential-source.js';
import type { Settings } from '../../shared/config.js';
import type { ProviderSettings } from '../../shared/providers/provider-settings.js';
import { credentialVendorOf } from '../../shared/providers/credential-vendors.js';
import { describeUnknownProvider } from '../../shared/providers/registry.js';
import type { StoreConfig } from '../../store/store-config.js';
import type { Store } from '../../store/store.js';
import type { WorkerPool } from '../../worker/pool/pool.js';
import type { ProviderConnection } from '../../worker/providers/provider-adapter.js';
import { providersWithAdapter } from '../../shared/providers/available.js';
import { resolveModelBinding, type ModelBinding } from '../../models/model-binding.js';
import { readRunModelLayers } from '../../runs/run-model-layers.js';
import { withCredential } from '../nodes/agent/agent-credential.js';

/** Text is streamed to the conversation in batches: at this many characters, or this long after the first waits. */
export const CHAT_FLUSH = { chars: 1024, ms: 200 } as const;
/**
 * A chat answer that stops streaming for this long is stopped (the idle watchdog of AI nodes is
 * 30 minutes, for agents at work; a chat answer that stalls this long is broken).
 */
export const CHAT_IDLE_TIMEOUT_MS = 120_000;

export interface ChatAssistantDeps {
  pool: Pick<WorkerPool, 'runChat'>;
  storeConfig: StoreConfig;
  settings: Settings;
  /** The users' stored preferences (their default assistant and chat model). */
  store: Pick<Store, 'getAiPrefs'>;
  /** The users' connected credentials. */
  credentials?: CredentialSource;
}

/**
 * The default assistant for chat turns, resolved per turn by the one binding module AI nodes
 * use: the install's `defaultAssistant` / `CAIRN_DEFAULT_ASSISTANT` (else `claude`) with
 * `assistants.<id>.model`, under the personal layer of the turn's user (their default provider
 * and chat model) when the turn has one; the user's connected credential for that provider wins
 * over the install's. Each call runs in a worker thread of the pool through that provider's
 * adapter, under the AI nodes' first-event watchdog and a chat idle watchdog, so the
 * supervisor's event loop and claim loop never wait on a provider.
 */
export function createChatAssistant(deps: ChatAssistantDeps): ChatAssistant {
  return {
    async forTurn(userId) {
      // As config.yaml reads now: an edited base URL, key or binary path applies from this turn on.
      const providers = deps.settings.providersNow();
      // The layers a run of this user would bind with, without a run's own or a repository's.
      const layers = await readRunModelLayers({ user_id: userId ?? null, metadata: {} }, null, deps);
      const binding = resolveModelBinding({ node: {}, workflow: {}, layers });
      let connection: ProviderConnection = binding.ok ? (providers.connections[binding.provider] ?? {}) : {};
      let personal = false;
      if (binding.ok && userId && deps.credentials) {
        const credential = await deps.credentials(userId, credentialVendorOf(binding.provider)).catch(() => undefined);
        if (credential) {
          connection = withCredential(connection, credential);
          personal = true;
        }
      }
      return turnAssistant(deps, providers, binding, connection, personal);
    },
  };
}

function turnAssistant(deps: ChatAssistantDeps, providers: ProviderSettings, binding: ModelBinding, connection: ProviderConnection, personal: boolean): TurnAssistant {
  const provider = binding.ok ? binding.provider : (providers.defaultAssistant ?? 'claude');
  // The keys this turn sends, and every configured secret (the CLI runs with the server's environment).
  const secrets = [...new Set([connection.apiKey, connection.authToken, ...providers.maskedSecrets].filter((s): s is string => s !== undefined))];

  function status(): AssistantStatus {
    if (!binding.ok) return { ready: false, provider, reason: 'unknown_provider', detail: describeUnknownProvider(provider) };
    if (!providersWithAdapter.includes(binding.provider)) {
      return { ready: false, provider, reason: 'no_adapter', detail: `it has no adapter in this version of Cairn (available: ${providersWithAdapter.join(', ')})` };
    }
    if (!personal && !providers.configured[binding.provider]) return { ready: false, provider, reason: 'not_configured' };
    return { ready: true, provider, ...(binding.model !== undefined ? { model: binding.model } : {}) };
  }

  return {
    secrets,
    status: status(),
    async ask(call): Promise<AssistantReply> {
      if (!binding.ok) throw new Error(binding.error);
      return deps.pool.runChat({
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
        secrets: [...secrets],
        firstEventTimeoutMs: providers.firstEventTimeoutMs,
        idleTimeoutMs: Math.min(providers.idleTimeoutMs, CHAT_IDLE_TIMEOUT_MS),
        scratchDir: join(deps.settings.home, 'tmp', 'chat', randomUUID()),
        flush: { ...CHAT_FLUSH },
      });
    },
  };
}
