import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentAttemptTaskSchema, type AgentAttemptTask } from '../../../src/worker/nodes/agent/agent-task.js';
import { runAgent, type AgentOutcome, type AgentTask } from '../../../src/worker/nodes/agent/agent.js';
import { spendOf } from '../../../src/worker/nodes/agent/agent-records.js';
import type { ProviderAdapter, ProviderChunk } from '../../../src/worker/providers/provider-adapter.js';
import { sqliteStoreConfig } from '../../../src/store/open-store.js';

/** A scratch folder per test, removed by `cleanup`. */
export function scratch(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-agent-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * An agent attempt task with test defaults. The watchdogs are generous (a test of them shortens
 * them): a vendor CLI's first start on a loaded machine, MCP servers included, can take 20 s.
 */
export function agentTask(dir: string, overrides: Partial<AgentAttemptTask>): AgentTask {
  return agentAttemptTaskSchema.parse({
    kind: 'agent',
    store: sqliteStoreConfig(join(dir, 'unused.sqlite')),
    runId: randomUUID(),
    conversationId: 'conv-test',
    path: 'ask',
    nodeId: 'ask',
    source: { kind: 'inline' },
    invocation: { id: randomUUID(), startedAt: new Date().toISOString(), loopPath: [] },
    attempt: { id: randomUUID(), number: 1 },
    prompt: 'Say hello',
    provider: 'anthropic',
    cwd: dir,
    options: { permissions: 'workspace' },
    connection: {},
    firstEventTimeoutMs: 60_000,
    idleTimeoutMs: 60_000,
    killGraceMs: 500,
    outputSpillDir: join(dir, 'spill'),
    scratchDir: join(dir, 'attempt'),
    ...overrides,
  });
}

/** Runs the real adapter through the attempt driver (watchdogs, output contract), collecting chunks. */
export async function runAttempt(
  adapter: ProviderAdapter,
  task: AgentTask,
  opts: { signal?: AbortSignal; onChunk?: (c: ProviderChunk) => void; onSpawned?: (pid: number) => Promise<void> } = {},
): Promise<{ outcome: AgentOutcome; chunks: ProviderChunk[]; spend: ReturnType<typeof spendOf> }> {
  const chunks: ProviderChunk[] = [];
  const outcome = await runAgent(task, adapter, {
    signal: opts.signal ?? new AbortController().signal,
    onChunk: (c) => {
      chunks.push(c);
      opts.onChunk?.(c);
    },
    ...(opts.onSpawned ? { onSpawned: opts.onSpawned } : {}),
  });
  return { outcome, chunks, spend: spendOf(task, outcome.end) };
}

/** Records the pid of every process an attempt spawns (its `onSpawned`), to check they are gone. */
export function spawnProbe() {
  const pids: number[] = [];
  return { pids, onSpawned: async (pid: number) => void pids.push(pid) };
}
