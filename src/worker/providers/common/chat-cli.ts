import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChildLauncher } from '../../spawn/child-launcher.js';
import { chatUsageFields, wireTokens } from './wire-usage.js';
import { launchCli } from './cli-process.js';
import { adapterFailure } from './failure-class.js';
import { startHttpRelay, type HttpRelay, type RelayedAnswer } from './http-relay.js';
import { isChatCall, openAiRefusal } from './openai-refusal.js';
import type { AdapterContext, AdapterFailure, ProviderChunk, ProviderRequest } from '../provider-adapter.js';
import { resumeOrCold, type ResumeSeen } from './session-resume.js';
import { unreadableOf, type UnreadableTally } from './stream-lines.js';

/**
 * One attempt of an agent CLI that talks to a Chat Completions server (OpenCode, Pi), the same
 * way for each: the CLI is pointed at a loopback relay in front of the configured server, which
 * notes each answer's status, `Retry-After`, model, finish reason and usage. The CLI's own token
 * counts fill what the server never sent with 0, so the relay's copy of the server's usage is
 * believed. The CLI retries a 429 or 5xx itself; the attempt stops at the first refused model
 * call, classified from what the server said, so Cairn's retry policy decides.
 */

/** What an adapter reads from its CLI's JSON lines. */
export interface ChatCliState {
  sawLine: boolean;
  /** The CLI finished its turn. */
  finished: boolean;
  sessionId: string | undefined;
  read(line: string): ProviderChunk[];
  /** The answer's text. */
  answerText(): string;
  /** A failure the CLI reported in its own words (after any refused call the relay saw). */
  ownFailure(): AdapterFailure | undefined;
  /** Lines it could not read (every reader reads through schemas, common/stream-lines.ts). */
  readonly unreadable: UnreadableTally;
}

export interface ChatCliSpec {
  /** For messages: `OpenCode`. */
  label: string;
  /** `$0` of the wrapper shell. */
  name: string;
  /** The server when none is configured. */
  defaultBaseUrl: string;
  /**
   * Writes the CLI's private config for the relay's URL; returns its argv and environment. With
   * `resume`, the argv continues that session.
   */
  prepare(relayUrl: string, resume: string | undefined): Promise<{ args: string[]; env: Record<string, string> }>;
  /** A reader of the CLI's lines, new for each run. */
  newState(): ChatCliState;
  /**
   * Whether a run asked to resume a session said it does not know it, from what it printed.
   * Without it the adapter never resumes (a retry starts fresh).
   */
  sessionNotFound?(state: ChatCliState, stderr: string): boolean;
}

/**
 * An attempt; a retry continues the session its node's failed attempt left when the CLI can
 * (session-resume.ts).
 */
export function runChatCli(request: ProviderRequest, ctx: AdapterContext, launcher: ChildLauncher, spec: ChatCliSpec): AsyncGenerator<ProviderChunk> {
  const resume = spec.sessionNotFound ? request.resumeSessionId : undefined;
  return resumeOrCold(resume, ctx.signal, (session, seen) => runChatCliOnce(request, ctx, launcher, spec, session, seen));
}

async function* runChatCliOnce(
  request: ProviderRequest,
  ctx: AdapterContext,
  launcher: ChildLauncher,
  spec: ChatCliSpec,
  resume: string | undefined,
  seen: ResumeSeen,
): AsyncGenerator<ProviderChunk> {
  const refusal: { failure?: AdapterFailure; stop?: () => Promise<void> } = {};
  const onRefused = (answer: RelayedAnswer) => {
    if (!isChatCall(answer) || refusal.failure) return;
    refusal.failure = openAiRefusal(answer);
    void refusal.stop?.();
  };
  let relay: HttpRelay;
  try {
    relay = await startHttpRelay(request.connection.baseUrl ?? spec.defaultBaseUrl, onRefused);
  } catch (err) {
    yield { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', `cannot reach the ${spec.label} server through a local relay: ${(err as Error).message}`) };
    return;
  }
  try {
    await mkdir(request.scratchDir, { recursive: true });
    const promptFile = join(request.scratchDir, 'prompt.md');
    await writeFile(promptFile, request.prompt);
    const { args, env } = await spec.prepare(relay.url, resume);
    const launched = await launchCli({ launcher, ctx, args, cwd: request.cwd, env, promptFile, name: spec.name });
    if (!launched.ok) {
      yield { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', `cannot start ${spec.label}: ${launched.error}`) };
      return;
    }
    const proc = launched.proc;
    refusal.stop = proc.stop;
    if (refusal.failure) void proc.stop();
    const state = spec.newState();
    let failure: AdapterFailure | undefined;
    try {
      for await (const line of proc.lines) {
        for (const chunk of state.read(line)) yield chunk;
      }
      const end = await proc.exited();
      if (ctx.signal.aborted || refusal.failure) await proc.stop();
      failure = refusal.failure ?? state.ownFailure() ?? exitFailure(spec.label, state, end.code, proc.stderr());
      if (resume !== undefined) seen.sessionNotFound = spec.sessionNotFound?.(state, proc.stderr()) ?? false;
    } finally {
      proc.finish();
    }
    const last = relay.chatCompletions.at(-1);
    yield {
      type: 'end',
      called: relay.answers.some(isChatCall),
      text: state.answerText(),
      observations: {
        ...wireTokens(relay.chatCompletions.map((answer) => answer.usage), chatUsageFields),
        ...(failure === undefined && last?.finishReason !== undefined ? { stopReason: last.finishReason } : {}),
      },
      ...(relay.streamedModel !== undefined ? { resolvedModel: relay.streamedModel } : {}),
      ...(state.sessionId !== undefined ? { sessionId: state.sessionId } : {}),
      ...(failure !== undefined ? { failure } : {}),
      ...unreadableOf(state.unreadable),
    };
  } finally {
    await relay.close();
  }
}

function exitFailure(label: string, state: ChatCliState, code: number | null, stderr: string): AdapterFailure | undefined {
  if (state.finished && code === 0) return undefined;
  const tail = stderr.trim().slice(-500);
  if (!state.sawLine && code === 0) return adapterFailure('transient', `${label} ended without a single event`);
  const how = code === null ? 'was killed' : `exited with code ${code}`;
  return adapterFailure(state.sawLine ? 'transient' : 'unknown', `${label} ${how} before its answer${tail ? `: ${tail}` : ''}`);
}
