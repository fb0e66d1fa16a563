import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChildLauncher } from '../../spawn/child-launcher.js';
import { defaultLauncher } from '../../spawn/default-launcher.js';
import { workerEnv } from '../../spawn/worker-env.js';
import { commandFor, launchCli, resolveCliExecutable, type ExecutableLookup } from '../common/cli-process.js';
import { strictSchema } from './config.js';
import { codexFailure } from './failure.js';
import { responsesUsageFields, wireTokens } from '../common/wire-usage.js';
import { CodexRollout } from './rollout.js';
import { codexSetup } from './setup.js';
import { CodexStreamState } from './stream.js';
import { unreadableOf } from '../common/stream-lines.js';
import { adapterFailure } from '../common/failure-class.js';
import { startHttpRelay, type HttpRelay } from '../common/http-relay.js';
import type { AdapterContext, AdapterFailure, ProviderAdapter, ProviderChunk, ProviderRequest } from '../provider-adapter.js';
import { resumeOrCold, type ResumeSeen } from '../common/session-resume.js';

/**
 * The Codex CLI: `codex exec --json --skip-git-repo-check --strict-config --color never -`, one
 * process group per attempt, the prompt on stdin from a file of the attempt (never on the command
 * line, never shell text).
 *
 * Each attempt gets its own CODEX_HOME under its scratch folder (never the user's `~/.codex`),
 * whose config.toml (setup.ts) names one model provider: the configured server reached
 * through a loopback relay (common/http-relay.ts) that notes each answer's status and `Retry-After`,
 * with the node's key passed in an environment variable the provider's `env_key` names. The same
 * file holds the node's permission level as Codex's sandbox and approval policy, and its options.
 * Codex's own retries are off: Cairn's retry policy decides, from a failure classified on what the
 * server said. Text comes from Codex's event stream, tool calls from the session's rollout
 * (rollout.ts).
 */

/** The contract's text for an executable that is not where the configuration says. */
export const CODEX_NOT_FOUND = 'Codex executable was not found at a configured path';

/** The server when none is configured. */
export const DEFAULT_CODEX_BASE_URL = 'https://api.openai.com/v1';

/** The environment variable the model provider's `env_key` names. */
export const CODEX_KEY_ENV = 'CAIRN_CODEX_API_KEY';

export function createCodexAdapter(launcher?: ChildLauncher): ProviderAdapter {
  return { id: 'codex', run: (request, ctx) => runCodex(request, ctx, launcher ?? defaultLauncher()) };
}

export const codexAdapter = createCodexAdapter();

/** Where the CLI is: the configured path (env, then config), the package's bin, or `codex` on PATH. */
export function resolveCodexExecutable(binaryPath: string | undefined, pathEnv: string | undefined): ExecutableLookup {
  return resolveCliExecutable(
    {
      notFound: CODEX_NOT_FOUND,
      envVar: 'CODEX_BIN_PATH',
      configKey: 'assistants.codex.codexBinaryPath',
      command: 'codex',
      packageEntry: '@openai/codex/bin/codex.js',
      packageName: '@openai/codex',
    },
    binaryPath,
    pathEnv,
  );
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
    // A retry asks to resume the session its node's failed attempt left (common/session-resume.ts).
    yield* resumeOrCold(request.resumeSessionId, ctx.signal, (resume, seen) => runWithRelay(request, ctx, launcher, exe.file, { ...env }, relay, resume, seen));
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
  resume: string | undefined,
  seen: ResumeSeen,
): AsyncGenerator<ProviderChunk> {
  // Codex keeps its sessions (rollouts) in CODEX_HOME: one per node and run, so a retry finds them.
  const codexHome = join(request.sessionDir ?? request.scratchDir, 'codex-home');
  const answersBefore = relay.answers.length;
  const hasKey = request.connection.apiKey !== undefined;
  const prepared = await codexSetup(request, relay.url, { ...workerEnv(), ...env }, hasKey ? CODEX_KEY_ENV : undefined);
  if (!prepared.ok) {
    yield { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', prepared.error) };
    return;
  }
  const { setup } = prepared;
  await mkdir(codexHome, { recursive: true });
  await mkdir(setup.tmpDir, { recursive: true });
  const promptFile = join(request.scratchDir, 'prompt.md');
  await writeFile(promptFile, request.prompt);
  await writeFile(join(codexHome, 'config.toml'), setup.configToml, { mode: 0o600 });
  let schemaArgs: string[] = [];
  if (request.outputFormat !== undefined) {
    const schemaFile = join(request.scratchDir, 'output-schema.json');
    await writeFile(schemaFile, JSON.stringify(strictSchema(request.outputFormat)));
    schemaArgs = ['--output-schema', schemaFile];
  }
  env.CODEX_HOME = codexHome;
  env.TMPDIR = setup.tmpDir;
  Object.assign(env, bypassProxyForRelay({ ...workerEnv(), ...env }));
  if (hasKey) env[CODEX_KEY_ENV] = request.connection.apiKey!;
  const state = new CodexStreamState();
  const rollout = new CodexRollout(join(codexHome, 'sessions'), request.options.permissions, state.unreadable);
  if (resume !== undefined) await rollout.skipExisting(resume);
  const args = [
    ...commandFor(file), 'exec', '--json', '--skip-git-repo-check', '--strict-config', '--color', 'never', ...schemaArgs,
    ...(resume !== undefined ? ['resume', resume] : []), '-',
  ];
  const launched = await launchCli({ launcher, ctx, args, cwd: request.cwd, env, promptFile, name: 'cairn-codex' });
  if (!launched.ok) {
    yield { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', `cannot start Codex: ${launched.error}`) };
    return;
  }
  const proc = launched.proc;
  let failure: AdapterFailure | undefined;
  try {
    for await (const line of proc.lines) {
      for (const chunk of state.read(line)) yield chunk;
      yield* await rollout.read(state.sessionId);
      if (rollout.sandboxFailure !== undefined) break;
    }
    if (rollout.sandboxFailure !== undefined) await proc.stop();
    const end = await proc.exited();
    if (ctx.signal.aborted) await proc.stop();
    yield* await rollout.read(state.sessionId);
    failure =
      rollout.sandboxFailure !== undefined
        ? sandboxUnavailable(rollout.sandboxFailure, request.options.permissions)
        : codexFailure(state, relay.answers, end.code, proc.stderr());
    seen.sessionNotFound =
      resume !== undefined && end.code !== 0 && relay.answers.length === answersBefore && /no rollout found/i.test(proc.stderr());
  } finally {
    proc.finish();
  }
  const text = state.lastMessage ?? state.text;
  yield {
    type: 'end',
    // A paid call happened once the server answered anything.
    called: relay.answers.length > 0,
    text,
    observations: { ...state.observations, ...wireTokens(relay.completedUsage, responsesUsageFields) },
    ...(relay.streamedModel !== undefined ? { resolvedModel: relay.streamedModel } : {}),
    ...(state.sessionId !== undefined ? { sessionId: state.sessionId } : {}),
    ...(failure !== undefined ? { failure } : {}),
    ...unreadableOf(state.unreadable),
  };
}

/**
 * Codex honours HTTP_PROXY / HTTPS_PROXY / ALL_PROXY for every URL, the loopback relay's too (0.169
 * and 0.171 alike): behind a proxy, every call would go to a proxy that cannot reach the
 * attempt's relay. The relay's host is added to NO_PROXY (both spellings), keeping what was there.
 */
export function bypassProxyForRelay(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['NO_PROXY', 'no_proxy']) {
    const current = (env[name] ?? '').split(',').map((h) => h.trim()).filter(Boolean);
    out[name] = [...new Set([...current, '127.0.0.1', 'localhost'])].join(',');
  }
  return out;
}

/** Codex's sandbox could not start: every command at this level would fail, so the attempt does. */
function sandboxUnavailable(evidence: string, level: string): AdapterFailure {
  return adapterFailure(
    'misconfigured',
    `Codex's sandbox cannot start on this machine (${evidence.slice(0, 300)}): at permissions ${level} Codex runs every command inside bubblewrap, which needs user namespaces. Run the node with 'permissions: full' (no sandbox: commands run as the server's user) or allow unprivileged user namespaces on this machine`,
  );
}
