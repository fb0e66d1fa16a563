import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { killProcessGroup } from '../../shared/process-group.js';
import type { ChildLauncher } from '../spawn/child-launcher.js';
import { defaultLauncher } from '../spawn/default-launcher.js';
import { findExecutable } from '../spawn/find-executable.js';
import { workerEnv } from '../spawn/worker-env.js';
import { codexConfigToml, strictSchema } from './codex-config.js';
import { codexFailure } from './codex-failure.js';
import { wireTokens } from './codex-usage.js';
import { CodexStreamState } from './codex-stream.js';
import { adapterFailure } from './failure-class.js';
import { startHttpRelay, type HttpRelay } from './http-relay.js';
import { LineQueue } from './line-queue.js';
import type { AdapterContext, AdapterFailure, ProviderAdapter, ProviderChunk, ProviderRequest } from './provider-adapter.js';

/**
 * The Codex CLI: `codex exec --json --skip-git-repo-check -`, one process group per attempt, the
 * prompt on stdin from a file of the attempt (never on the command line, never shell text).
 *
 * Each attempt gets its own CODEX_HOME under its scratch folder (never the user's `~/.codex`),
 * whose config.toml names one model provider: the configured server reached through a loopback
 * relay (http-relay.ts) that notes each answer's status and `Retry-After`, with the node's key
 * passed in an environment variable the provider's `env_key` names. Codex's own retries are off:
 * Cairn's retry policy decides, from a failure classified on what the server said.
 */

/** The contract's text for an executable that is not where the configuration says. */
export const CODEX_NOT_FOUND = 'Codex executable was not found at a configured path';

/** The server when none is configured. */
export const DEFAULT_CODEX_BASE_URL = 'https://api.openai.com/v1';

/** The environment variable the model provider's `env_key` names. */
export const CODEX_KEY_ENV = 'CAIRN_CODEX_API_KEY';

const KILL_GRACE_MS = 2_000;

/** Runs `"$@"` with stdin from the file named by $CAIRN_PROMPT_FILE; the prompt is never shell text. */
const STDIN_WRAPPER = 'exec "$@" < "$CAIRN_PROMPT_FILE"';

export function createCodexAdapter(launcher?: ChildLauncher): ProviderAdapter {
  return { id: 'codex', run: (request, ctx) => runCodex(request, ctx, launcher ?? defaultLauncher()) };
}

export const codexAdapter = createCodexAdapter();

/** The npm package's entry, when `@openai/codex` is installed next to Cairn. */
function packageBin(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('@openai/codex/bin/codex.js');
  } catch {
    return undefined;
  }
}

/** Where the CLI is: the configured path (env, then config), the package's bin, or `codex` on PATH. */
export function resolveCodexExecutable(binaryPath: string | undefined, pathEnv: string | undefined): { ok: true; file: string } | { ok: false; error: string } {
  if (binaryPath !== undefined) {
    const file = findExecutable(binaryPath, pathEnv);
    return file ? { ok: true, file } : { ok: false, error: `${CODEX_NOT_FOUND}: '${binaryPath}' does not exist (set CODEX_BIN_PATH or assistants.codex.codexBinaryPath)` };
  }
  const file = packageBin() ?? findExecutable('codex', pathEnv);
  return file
    ? { ok: true, file }
    : { ok: false, error: `${CODEX_NOT_FOUND}: CODEX_BIN_PATH and assistants.codex.codexBinaryPath are not set, @openai/codex is not installed and 'codex' is not on PATH` };
}

async function* runCodex(request: ProviderRequest, ctx: AdapterContext, launcher: ChildLauncher): AsyncGenerator<ProviderChunk> {
  const env = { ...request.connection.env };
  const exe = resolveCodexExecutable(request.connection.binaryPath, env.PATH ?? workerEnv().PATH);
  if (!exe.ok) {
    yield { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', exe.error) };
    return;
  }
  let relay: HttpRelay;
  try {
    relay = await startHttpRelay(request.connection.baseUrl ?? DEFAULT_CODEX_BASE_URL);
  } catch (err) {
    yield { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', `cannot reach the Codex server through a local relay: ${(err as Error).message}`) };
    return;
  }
  try {
    yield* runWithRelay(request, ctx, launcher, exe.file, env, relay);
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
): AsyncGenerator<ProviderChunk> {
  const codexHome = join(request.scratchDir, 'codex-home');
  await mkdir(codexHome, { recursive: true });
  const promptFile = join(request.scratchDir, 'prompt.md');
  await writeFile(promptFile, request.prompt);
  const hasKey = request.connection.apiKey !== undefined;
  await writeFile(
    join(codexHome, 'config.toml'),
    codexConfigToml({
      baseUrl: relay.url,
      ...(hasKey ? { envKey: CODEX_KEY_ENV } : {}),
      ...(request.model !== undefined ? { model: request.model } : {}),
      ...(request.systemPrompt !== undefined ? { developerInstructions: request.systemPrompt } : {}),
    }),
    { mode: 0o600 },
  );
  let schemaArgs: string[] = [];
  if (request.outputFormat !== undefined) {
    const schemaFile = join(request.scratchDir, 'output-schema.json');
    await writeFile(schemaFile, JSON.stringify(strictSchema(request.outputFormat)));
    schemaArgs = ['--output-schema', schemaFile];
  }
  env.CODEX_HOME = codexHome;
  env.CAIRN_PROMPT_FILE = promptFile;
  if (hasKey) env[CODEX_KEY_ENV] = request.connection.apiKey!;
  // A `.js` entry (the npm package's bin) runs under this Node.
  const command = /\.[cm]?js$/.test(file) ? [process.execPath, file] : [file];
  const args = [...command, 'exec', '--json', '--skip-git-repo-check', '--color', 'never', ...schemaArgs, '-'];
  const lines = new LineQueue();
  const stderr: Buffer[] = [];
  const launched = await launcher.launch(
    { file: '/bin/sh', args: ['-c', STDIN_WRAPPER, 'cairn-codex', ...args], cwd: request.cwd, env },
    { stdout: (c) => lines.push(c), stderr: (c) => stderr.push(c) },
  );
  if (!launched.ok) {
    yield { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', `cannot start Codex: ${launched.error.message}`) };
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
  const onAbort = () => void stop();
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  if (ctx.signal.aborted) onAbort();

  const state = new CodexStreamState();
  let failure: AdapterFailure | undefined;
  try {
    for await (const line of lines) {
      for (const chunk of state.read(line)) yield chunk;
    }
    const end = await child.exited.catch(() => ({ code: null, signal: null }));
    if (ctx.signal.aborted) await stop();
    failure = codexFailure(state, relay.answers, end.code, Buffer.concat(stderr).toString('utf8'));
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    if (!stopped) child.release();
  }
  const text = state.lastMessage ?? state.text;
  yield {
    type: 'end',
    // A paid call happened once the server answered anything.
    called: relay.answers.length > 0,
    text,
    observations: { ...state.observations, ...wireTokens(relay.completedUsage) },
    ...(relay.streamedModel !== undefined ? { resolvedModel: relay.streamedModel } : {}),
    ...(state.sessionId !== undefined ? { sessionId: state.sessionId } : {}),
    ...(failure !== undefined ? { failure } : {}),
  };
}
