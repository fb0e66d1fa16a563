import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChildLauncher } from '../../spawn/child-launcher.js';
import { defaultLauncher } from '../../spawn/default-launcher.js';
import { workerEnv } from '../../spawn/worker-env.js';
import { commandFor, launchCli, resolveCliExecutable, type ExecutableLookup } from '../common/cli-process.js';
import { adapterFailure } from '../common/failure-class.js';
import { geminiExitFailure, isModelCall, refusedFailure } from './failure.js';
import { prepareGeminiHome, scrubGeminiHome } from './home.js';
import { invalidToolNames, planGeminiPermissions, type GeminiPermissionPlan } from './policy.js';
import { geminiSettings } from './settings.js';
import { GeminiStreamState } from './stream.js';
import { unreadableOf } from '../common/stream-lines.js';
import { startHttpRelay, type HttpRelay, type RelayedAnswer } from '../common/http-relay.js';
import { loadMcpServers, type McpServer } from '../common/mcp-config.js';
import type { AdapterContext, AdapterFailure, ProviderAdapter, ProviderChunk, ProviderRequest } from '../provider-adapter.js';
import { resumeOrCold, type ResumeSeen } from '../common/session-resume.js';

/**
 * The Gemini CLI: `gemini --output-format stream-json`, one process group per attempt, the
 * prompt on stdin from a file of the attempt (never on the command line, never shell text).
 * The node's permission level and tool lists become the CLI's approval mode, workspace
 * directories and a policy file (policy.ts); its MCP servers, effort and systemPrompt go
 * into the home's settings and context file (settings.ts, home.ts).
 *
 * Each node of a run gets its own GEMINI_CLI_HOME (home.ts) under its session folder,
 * never the user's `~/.gemini`; the CLI keeps its sessions there, so a retry continues its
 * failed attempt's session (`--resume=<id>`), or starts fresh when the CLI no longer has it.
 * TMPDIR is the attempt's own. The CLI reaches the configured server through a loopback relay
 * (GOOGLE_GEMINI_BASE_URL), which notes each answer; the CLI retries a 429 or 5xx itself for minutes, so the adapter stops it at the first
 * refused model call and Cairn's retry policy decides, from what the server said.
 */

export const GEMINI_NOT_FOUND = 'Gemini CLI executable was not found at a configured path';

/** The server when none is configured. */
export const DEFAULT_GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com';

export function createGeminiAdapter(launcher?: ChildLauncher): ProviderAdapter {
  return { id: 'gemini', run: (request, ctx) => runGemini(request, ctx, launcher ?? defaultLauncher()) };
}

export const geminiAdapter = createGeminiAdapter();

/** Where the CLI is: the configured path (env, then config), the package's bin, or `gemini` on PATH. */
export function resolveGeminiExecutable(binaryPath: string | undefined, pathEnv: string | undefined): ExecutableLookup {
  return resolveCliExecutable(
    {
      notFound: GEMINI_NOT_FOUND,
      envVar: 'GEMINI_BIN_PATH',
      configKey: 'assistants.gemini.geminiBinaryPath',
      command: 'gemini',
      packageEntry: '@google/gemini-cli/bundle/gemini.js',
      packageName: '@google/gemini-cli',
    },
    binaryPath,
    pathEnv,
  );
}

async function* runGemini(request: ProviderRequest, ctx: AdapterContext, launcher: ChildLauncher): AsyncGenerator<ProviderChunk> {
  const env = { ...request.connection.env };
  const exe = resolveGeminiExecutable(request.connection.binaryPath, env.PATH ?? workerEnv().PATH);
  if (!exe.ok) {
    yield { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', exe.error) };
    return;
  }
  const setup = await prepareAttempt(request, env);
  if (!setup.ok) {
    yield { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', setup.error) };
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
    // A retry continues the session its node's failed attempt left (common/session-resume.ts).
    yield* resumeOrCold(request.resumeSessionId, ctx.signal, (resume, seen) => runWithRelay(request, ctx, launcher, exe.file, { ...env }, setup, relay, refusal, resume, seen));
  } finally {
    await relay.close();
  }
}

/** What an attempt runs with beyond the prompt: its level in the CLI's terms, its MCP servers. */
interface AttemptSetup {
  ok: true;
  plan: GeminiPermissionPlan;
  /** Where the plan's policy is written, in the attempt's folder. */
  policyFile: string;
  mcpServers: Record<string, McpServer>;
}

/** The node's options checked and turned into the CLI's terms, before anything starts. */
async function prepareAttempt(request: ProviderRequest, env: Record<string, string>): Promise<AttemptSetup | { ok: false; error: string }> {
  const problems = invalidToolNames(request.options);
  if (problems.length > 0) return { ok: false, error: problems.join('; ') };
  // The CLI splits a policy path at commas: one holding a comma would silently load nothing.
  const policyFile = join(request.scratchDir, 'gemini-policy.toml');
  if (policyFile.includes(',')) return { ok: false, error: `the Gemini CLI cannot take a policy file whose path holds a comma (${policyFile}); use a Cairn home whose path has none` };
  let mcpServers: Record<string, McpServer> = {};
  if (request.options.mcp !== undefined) {
    const loaded = await loadMcpServers(request.options.mcp, request.cwd, env);
    if (!loaded.ok) return { ok: false, error: loaded.error };
    mcpServers = loaded.servers;
  }
  return { ok: true, plan: planGeminiPermissions(request.options, Object.keys(mcpServers)), policyFile, mcpServers };
}

async function* runWithRelay(
  request: ProviderRequest,
  ctx: AdapterContext,
  launcher: ChildLauncher,
  file: string,
  env: Record<string, string>,
  setup: AttemptSetup,
  relay: HttpRelay,
  refusal: { failure?: AdapterFailure; stop?: () => Promise<void> },
  resume: string | undefined,
  seen: ResumeSeen,
): AsyncGenerator<ProviderChunk> {
  // Kept per run and node (the CLI keeps its sessions in it), so a retry can continue one.
  const home = join(request.sessionDir ?? request.scratchDir, 'gemini-home');
  const tmp = join(request.scratchDir, 'tmp');
  const settings = geminiSettings({
    includeDirectories: setup.plan.includeDirectories,
    mcpServers: setup.mcpServers,
    ...(request.effort !== undefined ? { effort: request.effort } : {}),
    ...(request.model !== undefined ? { model: request.model } : {}),
  });
  await prepareGeminiHome(home, { settings, ...(request.systemPrompt !== undefined ? { systemPrompt: request.systemPrompt } : {}) });
  await mkdir(tmp, { recursive: true });
  const promptFile = join(request.scratchDir, 'prompt.md');
  await writeFile(promptFile, request.prompt);
  await writeFile(setup.policyFile, setup.plan.policy);
  // An IDE's workspace folders would widen the CLI's workspace past the level's directories.
  delete env.GEMINI_CLI_IDE_WORKSPACE_PATH;
  Object.assign(env, {
    GEMINI_CLI_HOME: home,
    TMPDIR: tmp,
    GOOGLE_GEMINI_BASE_URL: relay.url,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    GEMINI_CLI_NO_RELAUNCH: 'true',
  });
  if (request.connection.apiKey !== undefined) env.GEMINI_API_KEY = request.connection.apiKey;
  // The policy goes in as both admin and user tier: `--policy` replaces the policy paths a
  // repository's settings may name, and holds when the machine's own system policies make the
  // CLI ignore `--admin-policy` (policy.ts). `--model=<m>`: one argument, so a model
  // starting with `-` is never read as a flag.
  const args = [
    ...commandFor(file), '--output-format', 'stream-json',
    `--approval-mode=${setup.plan.approvalMode}`, `--admin-policy=${setup.policyFile}`, `--policy=${setup.policyFile}`,
    ...(request.model !== undefined ? [`--model=${request.model}`] : []),
    ...(resume !== undefined ? [`--resume=${resume}`] : []),
  ];
  const launched = await launchCli({ launcher, ctx, args, cwd: request.cwd, env, promptFile, name: 'cairn-gemini' });
  if (!launched.ok) {
    await scrubGeminiHome(home);
    yield { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', `cannot start the Gemini CLI: ${launched.error}`) };
    return;
  }
  const proc = launched.proc;
  refusal.stop = proc.stop;
  if (refusal.failure) void proc.stop();

  const state = new GeminiStreamState();
  let failure: AdapterFailure | undefined;
  try {
    for await (const line of proc.lines) {
      for (const chunk of state.read(line)) yield chunk;
    }
    const end = await proc.exited();
    if (ctx.signal.aborted || refusal.failure) await proc.stop();
    failure = refusal.failure ?? geminiExitFailure(state, end.code, proc.stderr());
    // `--resume=<id>` naming a session the CLI does not have: "Error resuming session: Invalid session identifier".
    if (resume !== undefined) seen.sessionNotFound = /Error resuming session: Invalid session identifier/i.test(proc.stderr());
  } finally {
    proc.finish();
    await scrubGeminiHome(home);
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
    ...unreadableOf(state.unreadable),
  };
}
