import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { isProcessGroupAlive } from '../../../src/shared/process-group.js';
import type { ProviderAdapter } from '../../../src/worker/providers/provider-adapter.js';
import { agentTask, runAttempt, spawnProbe } from './agent-harness.js';

/**
 * The process cases every adapter that runs a vendor CLI (claude, codex, gemini) must pass, each
 * against its real CLI and local server: a stream that goes idle, an executable that never
 * speaks, a cancel mid-stream, an executable that is not there. Each ends with the attempt's
 * whole process group gone by the time the attempt has ended. Registered inside the adapter's
 * own `describe`, with its per-test server and scratch folder.
 */
export interface CliProcessSpec {
  provider: NonNullable<Parameters<typeof agentTask>[1]['provider']>;
  adapter: ProviderAdapter;
  /** A task against a fresh local server that accepts the call and never answers. */
  hangingTask: (overrides?: Parameters<typeof agentTask>[1]) => Promise<ReturnType<typeof agentTask>>;
  /** The contract's "executable was not found at a configured path" text of this adapter. */
  notFound: string;
  dir: () => string;
}

export function cliProcessCases(spec: CliProcessSpec): void {
  it('kills the process tree and fails with timeout when the stream goes idle', async () => {
    const task = await spec.hangingTask({ idleTimeoutMs: 1500 });
    const probe = spawnProbe();
    const { outcome } = await runAttempt(spec.adapter, task, { onSpawned: probe.onSpawned });
    expect(outcome.failureKind).toBe('timeout');
    expect(isProcessGroupAlive(probe.pids[0]!)).toBe(false);
  });

  it('kills the process tree of an executable that never speaks (first-event watchdog)', async () => {
    const silent = join(spec.dir(), `silent-${spec.provider}`);
    // A stand-in that starts a child of its own and says nothing.
    writeFileSync(silent, '#!/bin/sh\nsleep 60 &\nsleep 60\n');
    chmodSync(silent, 0o755);
    const task = agentTask(spec.dir(), { provider: spec.provider, connection: { binaryPath: silent }, firstEventTimeoutMs: 300 });
    const probe = spawnProbe();
    const { outcome } = await runAttempt(spec.adapter, task, { onSpawned: probe.onSpawned });
    expect(outcome.failureKind).toBe('timeout');
    expect(outcome.error).toMatch(/first-event watchdog/);
    expect(isProcessGroupAlive(probe.pids[0]!)).toBe(false);
  });

  it('leaves no process when cancelled mid-stream', async () => {
    const task = await spec.hangingTask();
    const probe = spawnProbe();
    const controller = new AbortController();
    const { outcome } = await runAttempt(spec.adapter, task, {
      signal: controller.signal,
      onSpawned: probe.onSpawned,
      onChunk: (c) => c.type === 'session' && controller.abort('cancelled'),
    });
    expect(outcome.status).toBe('cancelled');
    expect(isProcessGroupAlive(probe.pids[0]!)).toBe(false);
  });

  it("fails with the contract's error when the configured executable is missing", async () => {
    const task = agentTask(spec.dir(), { provider: spec.provider, connection: { binaryPath: join(spec.dir(), `no-such-${spec.provider}`) } });
    const { outcome, spend } = await runAttempt(spec.adapter, task);
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toContain(spec.notFound);
    expect(outcome.failureKind).toBe('config');
    expect(spend.costUsd).toEqual({ source: 'unavailable', reason: 'not_applicable' });
  });
}
