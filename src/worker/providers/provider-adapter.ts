import type { ProviderFailure } from '../../records/schemas/node-lifecycle.js';
import type { SpendObservations } from '../../records/spend.js';
import type { Effort } from '../../records/schemas/execution-record.js';
import type { AgentOptions } from '../../shared/providers/agent-options.js';
import type { ProviderId } from '../../shared/providers/registry.js';

/**
 * The one interface every provider adapter implements: one node attempt in, a stream of chunks
 * out, ending with exactly one `end` chunk that carries what the provider reported (and only
 * that: a value it did not send is left out, never estimated, never zero).
 */

/** What an adapter is asked to do for one attempt, fully resolved by the supervisor. */
export interface ProviderRequest {
  provider: ProviderId;
  prompt: string;
  /** The model to ask for; undefined lets the provider choose its default. */
  model?: string;
  /** Reasoning depth, already clamped to what the provider accepts. */
  effort?: Effort;
  /** A JSON Schema the answer must satisfy (`output_format`). */
  outputFormat?: Record<string, unknown>;
  systemPrompt?: string;
  /**
   * The permission level the agent works at and the node's provider options. An adapter maps
   * each onto its provider's mechanism; the registry declares which it honours (a node asking for
   * another is a validation warning), so an adapter never silently drops one it declares.
   */
  options: AgentOptions;
  /** The working directory of agent CLIs. */
  cwd: string;
  /** Connection settings from config and the environment (base URL, key, executable path). */
  connection: ProviderConnection;
  /** Per-run-and-attempt session key: never shared between two runs. */
  sessionKey: string;
  /**
   * The session a failed earlier attempt of this node (same run) left, to continue. An adapter
   * that resumes sessions tries it and, when the provider no longer knows it, starts cold
   * (`sessionOrigin: resume-failed-cold`); other adapters ignore it.
   */
  resumeSessionId?: string;
  /**
   * Continue `resumeSessionId` as a new session of its own (another node's session, which must
   * stay as it was): adapters whose provider can fork do (`sessionFork` capability); others continue it.
   */
  forkSession?: boolean;
  /**
   * A folder kept across the attempts of one node in one run, where a CLI keeps the sessions a
   * later attempt may resume (Codex's CODEX_HOME); absent, the attempt's scratch folder serves.
   */
  sessionDir?: string;
  /** Where a CLI adapter may write the attempt's own files (its prompt, its CODEX_HOME ...). */
  scratchDir: string;
}

/** How to reach a provider; every key optional, resolved config → environment → default. */
export interface ProviderConnection {
  baseUrl?: string;
  apiKey?: string;
  /** A subscription (OAuth) bearer token, where the vendor takes one apart from API keys (Anthropic). */
  authToken?: string;
  /** CLI adapters: the executable to run. */
  binaryPath?: string;
  /** Extra environment for CLI adapters (the server's environment is passed through). */
  env?: Record<string, string>;
}

/** A rate-limit or overload notice: the provider is waiting and will try again itself. */
export interface RateLimitNotice {
  type: 'rate_limit';
  status?: number;
  retryAfterMs?: number;
  message: string;
}

export type ProviderChunk =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'tool_call'; id?: string; name: string; input: unknown }
  /**
   * A tool's result. `refused`: the provider refused the call (a permission level, a denied tool,
   * a sandbox), as opposed to a tool that ran and failed.
   */
  | { type: 'tool_result'; id?: string; output: string; isError?: boolean; refused?: boolean }
  | RateLimitNotice
  /** The provider's own retry of a call that got no answer (a refused connection): it tries again. */
  | { type: 'retrying'; attempt: number; maxRetries: number; retryAfterMs?: number; message: string }
  /** The provider named its session (CLI adapters). */
  | { type: 'session'; sessionId: string }
  /**
   * The provider's answer stream opened with a frame that carries no content yet (a Chat
   * Completions role chunk, a Messages `message_start`): its first event, so from here the idle
   * watchdog applies, not the first-event one. Recorded nowhere.
   */
  | { type: 'stream_open' }
  | ProviderEnd;

/** The attempt's last chunk: what the provider reported, and how the call ended. */
export interface ProviderEnd {
  type: 'end';
  /** The answer's text as the provider gave it as final (else the text chunks joined). */
  text?: string;
  structured?: unknown;
  observations: SpendObservations;
  /** The model the provider says answered; undefined when it did not say. */
  resolvedModel?: string;
  sessionId?: string;
  /** Set when the request asked to resume a session: whether it was continued or started cold. */
  sessionOrigin?: 'resumed' | 'resume-failed-cold';
  /** Whether a paid call reached the provider (false: spend is `not_applicable`). */
  called: boolean;
  failure?: AdapterFailure;
  /** CLI adapters: lines of the CLI's stream its reader could not read (common/stream-lines.ts). */
  unreadableLines?: UnreadableLines;
}

/** What a stream held that its reader could not read: how many lines, and the first, with why. */
export interface UnreadableLines {
  count: number;
  /** `<why>: <the line, cut>`. */
  first: string;
}

/** A failed call, classified from what the provider said. */
export interface AdapterFailure {
  message: string;
  provider: ProviderFailure;
}

export interface AdapterContext {
  /** Aborted on cancel or by a watchdog; the adapter stops its call (and kills its processes) before it ends. */
  signal: AbortSignal;
  /** CLI adapters: called with the child's process group before it is let go. */
  onSpawned?: (pid: number) => Promise<void>;
  /**
   * CLI adapters: the launcher lost the child (its spawn helper died; its group is killed), with
   * what happened. Called before its stdout ends: the attempt is an interruption, not a failure
   * of the provider.
   */
  onLost?: (lost: string) => void;
}

export interface ProviderAdapter {
  readonly id: ProviderId;
  /** Runs one attempt. The stream always ends with one `end` chunk, also after an abort. */
  run(request: ProviderRequest, ctx: AdapterContext): AsyncIterable<ProviderChunk>;
}
