import type { z } from 'zod';
import type { FailureKind, ProviderFailure } from '../../../records/schemas/node-lifecycle.js';
import type { agentAttemptTaskSchema } from './agent-task.js';
import type { ProviderChunk, ProviderEnd } from '../../providers/provider-adapter.js';

/** An agent attempt as the worker sees it, after parsing. */
export type AgentTask = z.output<typeof agentAttemptTaskSchema>;

/**
 * What `runAgent` reads of a task: an AI node's attempt, or a chat turn's call to the default
 * assistant (which has no run: its `runId` and `attempt.id` only name its session key).
 */
export type AgentCall = Pick<
  AgentTask,
  'provider' | 'prompt' | 'model' | 'outputFormat' | 'systemPrompt' | 'options' | 'cwd' | 'connection' | 'runId' | 'scratchDir' | 'firstEventTimeoutMs' | 'idleTimeoutMs'
> & Partial<Pick<AgentTask, 'resumeSessionId' | 'sessionDir' | 'effort' | 'sessionSource'>> & { attempt: Pick<AgentTask['attempt'], 'id'> };

/** How one AI attempt ended, with everything its record needs. */
export interface AgentOutcome {
  status: 'completed' | 'failed' | 'cancelled';
  output: string;
  structured?: unknown;
  error?: string;
  failureKind?: FailureKind;
  retryable?: boolean;
  interrupted?: true;
  providerFailure?: ProviderFailure;
  /**
   * What the provider's last chunk said (spend observations, model, session); when the provider
   * was asked more than once, the calls' spend summed (structured-answer.ts).
   */
  end: ProviderEnd;
  /** The `output_format` errors of the answers that were asked again, in order. */
  reasked?: string[];
}

export interface AgentRunOptions {
  signal: AbortSignal;
  /**
   * A CLI's process group, before the process runs. `ask` is 1 for the attempt's question and
   * counts on for each time a best-effort provider is asked again for its structured answer.
   */
  onSpawned?: (pid: number, ask: number) => Promise<void>;
  /** Each chunk as it arrives (the `end` chunk excluded). */
  onChunk?: (chunk: ProviderChunk) => void;
  /** A CLI's process was lost with its spawn helper (AdapterContext.onLost). */
  onLost?: (lost: string) => void;
}
