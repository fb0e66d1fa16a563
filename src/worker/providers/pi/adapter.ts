import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChildLauncher } from '../../spawn/child-launcher.js';
import { defaultLauncher } from '../../spawn/default-launcher.js';
import { workerEnv } from '../../spawn/worker-env.js';
import { runChatCli } from '../common/chat-cli.js';
import { commandFor, resolveCliExecutable, type ExecutableLookup } from '../common/cli-process.js';
import { adapterFailure } from '../common/failure-class.js';
import { planPi } from './options.js';
import { PiStreamState } from './stream.js';
import { piWorkspaceGuardSource } from './workspace-guard.js';
import type { AdapterContext, ProviderAdapter, ProviderChunk, ProviderRequest } from '../provider-adapter.js';

/**
 * The Pi coding agent: `pi --mode json -p`, one process group per attempt, the prompt on stdin
 * from a file of the attempt (never on the command line, never shell text).
 *
 * Each node of a run gets its own HOME and PI_CODING_AGENT_DIR under its session folder (never
 * the user's `~/.pi`), where Pi keeps its sessions: a retry continues its failed attempt's
 * session with `--session <id>`, or starts fresh when Pi no longer has it. `models.json` defines
 * one provider, `cairn` (`openai-completions`: any Chat Completions server) reached through the
 * loopback relay, and `settings.json` makes it the default with the model asked for, turns Pi's
 * own retries off and keeps it offline. The key goes to Pi in an environment variable
 * `models.json` names, never in a file.
 */

export const PI_NOT_FOUND = 'Pi executable was not found at a configured path';

export const DEFAULT_PI_BASE_URL = 'https://api.openai.com/v1';

/** The environment variable `models.json`'s `apiKey` names. */
export const PI_KEY_ENV = 'CAIRN_PI_API_KEY';

export function createPiAdapter(launcher?: ChildLauncher): ProviderAdapter {
  return { id: 'pi', run: (request, ctx) => runPi(request, ctx, launcher ?? defaultLauncher()) };
}

export const piAdapter = createPiAdapter();

export function resolvePiExecutable(binaryPath: string | undefined, pathEnv: string | undefined): ExecutableLookup {
  return resolveCliExecutable(
    {
      notFound: PI_NOT_FOUND,
      envVar: 'PI_BIN_PATH',
      configKey: 'assistants.pi.piBinaryPath',
      command: 'pi',
      packageEntry: '@mariozechner/pi-coding-agent/dist/cli.js',
      packageName: '@mariozechner/pi-coding-agent',
    },
    binaryPath,
    pathEnv,
  );
}

async function* runPi(request: ProviderRequest, ctx: AdapterContext, launcher: ChildLauncher): AsyncGenerator<ProviderChunk> {
  const env = { ...request.connection.env };
  const model = request.model;
  if (model === undefined) {
    yield { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', "Pi needs a model: set the node's or workflow's `model`, or assistants.pi.model") };
    return;
  }
  const exe = resolvePiExecutable(request.connection.binaryPath, env.PATH ?? workerEnv().PATH);
  if (!exe.ok) {
    yield { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', exe.error) };
    return;
  }
  const plan = planPi(request);
  if (!plan.ok) {
    yield { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', `Pi cannot run this node: ${plan.error}`) };
    return;
  }
  yield* runChatCli(request, ctx, launcher, {
    label: 'Pi',
    name: 'cairn-pi',
    defaultBaseUrl: DEFAULT_PI_BASE_URL,
    newState: () => new PiStreamState(),
    prepare: (relayUrl, resume) => preparePi(request, model, exe.file, env, relayUrl, resume, plan),
    // `--session <id>` that Pi cannot find: "No session found matching '<id>'", exit 1.
    sessionNotFound: (_state, stderr) => /No session found matching/i.test(stderr),
  });
}

async function preparePi(
  request: ProviderRequest,
  model: string,
  file: string,
  env: Record<string, string>,
  relayUrl: string,
  resume: string | undefined,
  plan: Extract<ReturnType<typeof planPi>, { ok: true }>,
) {
  // Kept per run and node (its sessions with it), so the node's next attempt can continue one.
  const home = join(request.sessionDir ?? request.scratchDir, 'pi-home');
  const agentDir = join(home, 'agent');
  await mkdir(agentDir, { recursive: true });
  const hasKey = request.connection.apiKey !== undefined;
  const models = {
    providers: {
      // Pi requires a key; with none configured (a local server) it sends a placeholder.
      cairn: { baseUrl: relayUrl, api: 'openai-completions', apiKey: hasKey ? PI_KEY_ENV : 'no-key', models: [modelEntry(model, plan.reasoning)] },
    },
  };
  await writeFile(join(agentDir, 'models.json'), JSON.stringify(models, null, 2), { mode: 0o600 });
  const settings = {
    defaultProvider: 'cairn',
    defaultModel: model,
    quietStartup: true,
    enableInstallTelemetry: false,
    retry: { enabled: false, provider: { maxRetries: 0 } },
  };
  await writeFile(join(agentDir, 'settings.json'), JSON.stringify(settings, null, 2));
  const systemArgs: string[] = [];
  if (request.systemPrompt !== undefined) {
    // A path: Pi appends the file's contents, so the text never becomes an argument.
    const promptFile = join(request.scratchDir, 'system-prompt.md');
    await writeFile(promptFile, request.systemPrompt);
    systemArgs.push('--append-system-prompt', promptFile);
  }
  Object.assign(env, {
    HOME: home,
    PI_CODING_AGENT_DIR: agentDir,
    PI_OFFLINE: '1',
    PI_SKIP_VERSION_CHECK: '1',
    PI_TELEMETRY: '0',
  });
  if (hasKey) env[PI_KEY_ENV] = request.connection.apiKey!;
  const guardArgs: string[] = [];
  if (plan.workspaceGuard) {
    const guardFile = join(request.scratchDir, 'cairn-workspace-guard.mjs');
    await writeFile(guardFile, piWorkspaceGuardSource(await workspaceRoots(request)));
    guardArgs.push('--extension', guardFile);
  }
  const resumeArgs = resume !== undefined ? ['--session', resume] : [];
  return {
    args: [...commandFor(file), '--mode', 'json', '-p', '--session-dir', join(home, 'sessions'), ...resumeArgs, ...systemArgs, ...plan.args, ...guardArgs],
    env,
  };
}

/**
 * The model as `models.json` declares it. Reasoning-capable only when the node asks for thinking:
 * Pi then sends `reasoning_effort` (and the system prompt as a `developer` message), which a server
 * without reasoning may refuse. `xhigh` is sent as asked (Pi's default mapping would send `high`).
 */
function modelEntry(model: string, reasoning: boolean) {
  return reasoning ? { id: model, reasoning: true, thinkingLevelMap: { xhigh: 'xhigh' } } : { id: model };
}

/** The folders a `workspace` agent may write: its working directory and the extra ones, through their links. */
async function workspaceRoots(request: ProviderRequest): Promise<string[]> {
  const roots: string[] = [];
  for (const dir of [request.cwd, ...request.options.extraDirs]) {
    roots.push(await realpath(dir).catch(() => dir));
  }
  return roots;
}
