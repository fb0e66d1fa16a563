import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { killProcessGroup } from '../../shared/process-group.js';
import type { ChildLauncher } from '../spawn/child-launcher.js';
import { defaultLauncher } from '../spawn/default-launcher.js';
import { findExecutable } from '../spawn/find-executable.js';
import { workerEnv } from '../spawn/worker-env.js';
import { adapterFailure } from './failure-class.js';
import { geminiExitFailure, isModelCall, refusedFailure } from './gemini-failure.js';
import { GeminiStreamState } from './gemini-stream.js';
import { startHttpRelay, type HttpRelay, type RelayedAnswer } from './http-relay.js';
import { LineQueue } from './line-queue.js';
import type { AdapterContext, AdapterFailure, ProviderAdapter, ProviderChunk, ProviderRequest } from './provider-adapter.js';

/**
 * The Gemini CLI: `gemini --output-format stream-json`, one process group per attempt, the
 * prompt on stdin from a file of the attempt (never on the command line, never shell text).
 *
 * Each attempt gets its own GEMINI_CLI_HOME (settings: API-key auth, no auto-update, no usage
 * statistics) and TMPDIR under its scratch folder, never the user's `~/.gemini`. The CLI reaches
 * the configured server through a loopback relay (GOOGLE_GEMINI_BASE_URL), which notes each
 * answer; the CLI retries a 429 or 5xx itself for minutes, so the adapter stops it at the first
 * refused model call and Cairn's retry policy decides, from what the server said.
 */

export const GEMINI_NOT_FOUND = 'Gemini CLI executable was not found at a configured path';

/** The server when none is configured. */
export const DEFAULT_GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com';

const KILL_GRACE_MS = 2_000;
const STDIN_WRAPPER = 'exec "$@" < "$CAIRN_PROMPT_FILE"';

const SETTINGS = {
  security: { auth: { selectedType: 'gemini-api-key' } },
  general: { disableAutoUpdate: true, disableUpdateNag: true },
  privacy: { usageStatisticsEnabled: false },
};

export function createGeminiAdapter(launcher?: ChildLauncher): ProviderAdapter {
  return { id: 'gemini', run: (request, ctx) => runGemini(request, ctx, launcher ?? defaultLauncher()) };
}

export const geminiAdapter = createGeminiAdapter();

function packageBin(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('@google/gemini-cli/bundle/gemini.js');
  } catch {
    return undefined;
  }
}

/** Where the CLI is: the configured path (env, then config), the package's bin, or `gemini` on PATH. */
export function resolveGeminiExecutable(binaryPath: string | undefined, pathEnv: string | undefined): { ok: true; file: string } | { ok: false; error: string } {
  if (binaryPath !== undefined) {
    const file = findExecutable(binaryPath, pathEnv);
    return file ? { ok: true, file } : { ok: false, error: `${GEMINI_NOT_FOUND}: '${binaryPath}' does not exist (set GEMINI_BIN_PATH or assistants.gemini.geminiBinaryPath)` };
  }
  const file = packageBin() ?? findExecutable('gemini', pathEnv);
  return file
    ? { ok: true, file }
    : { ok: false, error: `${GEMINI_NOT_FOUND}: GEMINI_BIN_PATH and assistants.gemini.geminiBinaryPath are not set, @google/gemini-cli is not installed and 'gemini' is not on PATH` };
}

async function* runGemini(request: ProviderRequest, ctx: AdapterContext, launcher: ChildLauncher): AsyncGenerator<ProviderChunk> {
  const env = { ...request.connection.env };
  const exe = resolveGeminiExecutable(request.connection.binaryPath, env.PATH ?? workerEnv().PATH);
  if (!exe.ok) {
    yield { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', exe.error) };
    return;
  }
  // The first refused model call ends the attempt: set once the child runs.
  const refusal: { failure?: AdapterFailure; stop?: () => Promise<void> } = {};
  const onRefused = (answer: RelayedAnswer) => {
    if (!isModelCall(answer) || refusal.failure) return;
    refusal.failure = refusedFailure(answer);
    void refusal.stop?.();
  };
  let relay: HttpRelay;
  try {
    relay = await startHttpRelay(request.connection.baseUrl ?? DEFAULT_GEMINI_BASE_URL, onRefused);
  } catch (err) {
    yield { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', `cannot reach the Gemini server through a local relay: ${(err as Error).message}`) };
    return;
  }
  try {
    yield* runWithRelay(request, ctx, launcher, exe.file, env, relay, refusal);
  } finally {
    await relay.close();
  }
}

async function* runWithRelay(
  request: ProviderRequest,
  ctx: AdapterContext,
  launcher: ChildLauncher,
  file: string,
  env: Record<string, string>,
  relay: HttpRelay,
  refusal: { failure?: AdapterFailure; stop?: () => Promise<void> },
): AsyncGenerator<ProviderChunk> {
  const home = join(request.scratchDir, 'gemini-home');
  const tmp = join(request.scratchDir, 'tmp');
  await mkdir(join(home, '.gemini'), { recursive: true });
  await mkdir(tmp, { recursive: true });
  await writeFile(join(home, '.gemini', 'settings.json'), JSON.stringify(SETTINGS, null, 2));
  const promptFile = join(request.scratchDir, 'prompt.md');
  await writeFile(promptFile, request.prompt);
  Object.assign(env, {
    GEMINI_CLI_HOME: home,
    TMPDIR: tmp,
    GOOGLE_GEMINI_BASE_URL: relay.url,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    GEMINI_CLI_NO_RELAUNCH: 'true',
    CAIRN_PROMPT_FILE: promptFile,
  });
  if (request.connection.apiKey !== undefined) env.GEMINI_API_KEY = request.connection.apiKey;
  const command = /\.[cm]?js$/.test(file) ? [process.execPath, file] : [file];
  // `--model=<m>`: one argument, so a model starting with `-` is never read as a flag.
  const args = [...command, '--output-format', 'stream-json', ...(request.model !== undefined ? [`--model=${request.model}`] : [])];
  const lines = new LineQueue();
  const stderr: Buffer[] = [];
  const launched = await launcher.launch(
    { file: '/bin/sh', args: ['-c', STDIN_WRAPPER, 'cairn-gemini', ...args], cwd: request.cwd, env },
    { stdout: (c) => lines.push(c), stderr: (c) => stderr.push(c) },
  );
  if (!launched.ok) {
    yield { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', `cannot start the Gemini CLI: ${launched.error.message}`) };
    return;
  }
  const child = launched.child;
  try {
    await ctx.onSpawned?.(child.pid);
  } catch (err) {
    await killProcessGroup(child.pid, { graceMs: 0, signal: 'SIGKILL' });
    child.release();
    throw err;
  }
  child.start();
  void child.closed.then(() => lines.end(), () => lines.end());
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await killProcessGroup(child.pid, { graceMs: KILL_GRACE_MS });
    child.release();
    lines.end();
  };
  refusal.stop = stop;
  if (refusal.failure) void stop();
  const onAbort = () => void stop();
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  if (ctx.signal.aborted) onAbort();

  const state = new GeminiStreamState();
  let failure: AdapterFailure | undefined;
  try {
    for await (const line of lines) {
      for (const chunk of state.read(line)) yield chunk;
    }
    const end = await child.exited.catch(() => ({ code: null, signal: null }));
    if (ctx.signal.aborted || refusal.failure) await stop();
    failure = refusal.failure ?? geminiExitFailure(state, end.code, Buffer.concat(stderr).toString('utf8'));
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    if (!stopped) child.release();
  }
  yield {
    type: 'end',
    called: relay.answers.some(isModelCall),
    text: state.text,
    // A refused call reported no usage: the CLI's zeros for it are not the provider's.
    observations: refusal.failure ? {} : state.observations,
    ...(state.resolvedModel !== undefined ? { resolvedModel: state.resolvedModel } : {}),
    ...(state.sessionId !== undefined ? { sessionId: state.sessionId } : {}),
    ...(failure !== undefined ? { failure } : {}),
  };
}
