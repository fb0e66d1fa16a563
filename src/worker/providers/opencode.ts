import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChildLauncher } from '../spawn/child-launcher.js';
import { defaultLauncher } from '../spawn/default-launcher.js';
import { workerEnv } from '../spawn/worker-env.js';
import { runChatCli } from './chat-cli.js';
import { commandFor, resolveCliExecutable, type ExecutableLookup } from './cli-process.js';
import { adapterFailure } from './failure-class.js';
import { OpencodeStreamState } from './opencode-stream.js';
import type { AdapterContext, ProviderAdapter, ProviderChunk, ProviderRequest } from './provider-adapter.js';

/**
 * The OpenCode CLI: `opencode run --format json`, one process group per attempt, the prompt on
 * stdin from a file of the attempt (never on the command line, never shell text).
 *
 * Each node of a run gets its own HOME and XDG folders under its session folder (never the
 * user's `~/.config/opencode` or `~/.local/share/opencode`), where OpenCode keeps its sessions: a
 * retry continues its failed attempt's session with `--session`, or starts fresh when OpenCode no
 * longer has it. The global config there defines one provider,
 * `cairn` (`@ai-sdk/openai-compatible`: any Chat Completions server), reached through a loopback
 * relay that notes each answer's status, `Retry-After` and usage. The key goes to OpenCode in an
 * environment variable the config names (`{env:...}`), never in a file. OpenCode retries a 429
 * or 5xx itself; the adapter stops it at the first refused model call, so Cairn's retry policy
 * decides.
 */

export const OPENCODE_NOT_FOUND = 'OpenCode executable was not found at a configured path';

/** The server when none is configured. */
export const DEFAULT_OPENCODE_BASE_URL = 'https://api.openai.com/v1';

/** The environment variable the config's `apiKey: {env:...}` names. */
export const OPENCODE_KEY_ENV = 'CAIRN_OPENCODE_API_KEY';

/** OpenCode's own network calls and downloads, all off for an attempt. */
const QUIET_ENV = {
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
  OPENCODE_DISABLE_SHARE: '1',
  OPENCODE_DISABLE_CLAUDE_CODE: '1',
  OPENCODE_DISABLE_PROJECT_CONFIG: '1',
};

export function createOpencodeAdapter(launcher?: ChildLauncher): ProviderAdapter {
  return { id: 'opencode', run: (request, ctx) => runOpencode(request, ctx, launcher ?? defaultLauncher()) };
}

export const opencodeAdapter = createOpencodeAdapter();

/** The platform package's binary (what `opencode-ai` installs), the package's own bin, or `opencode` on PATH. */
export function resolveOpencodeExecutable(binaryPath: string | undefined, pathEnv: string | undefined): ExecutableLookup {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  return resolveCliExecutable(
    {
      notFound: OPENCODE_NOT_FOUND,
      envVar: 'OPENCODE_BIN_PATH',
      configKey: 'assistants.opencode.opencodeBinaryPath',
      command: 'opencode',
      packageEntry: [`opencode-${platform}-${process.arch}/bin/opencode`, 'opencode-ai/bin/opencode.exe'],
      packageName: 'opencode-ai',
    },
    binaryPath,
    pathEnv,
  );
}

async function* runOpencode(request: ProviderRequest, ctx: AdapterContext, launcher: ChildLauncher): AsyncGenerator<ProviderChunk> {
  const env = { ...request.connection.env };
  const model = request.model;
  if (model === undefined) {
    yield {
      type: 'end',
      called: false,
      observations: {},
      failure: adapterFailure('misconfigured', "OpenCode needs a model: set the node's or workflow's `model`, or assistants.opencode.model"),
    };
    return;
  }
  const exe = resolveOpencodeExecutable(request.connection.binaryPath, env.PATH ?? workerEnv().PATH);
  if (!exe.ok) {
    yield { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', exe.error) };
    return;
  }
  yield* runChatCli(request, ctx, launcher, {
    label: 'OpenCode',
    name: 'cairn-opencode',
    defaultBaseUrl: DEFAULT_OPENCODE_BASE_URL,
    newState: () => new OpencodeStreamState(),
    prepare: (relayUrl, resume) => prepareOpencode(request, model, exe.file, env, relayUrl, resume),
    // `--session` naming a session OpenCode does not have: "Error: Session not found".
    sessionNotFound: (_state, stderr) => /Session not found/i.test(stderr),
  });
}

async function prepareOpencode(request: ProviderRequest, model: string, file: string, env: Record<string, string>, relayUrl: string, resume: string | undefined) {
  // Kept per run and node (OpenCode's sessions live in its data folder), so a retry can continue one.
  const home = join(request.sessionDir ?? request.scratchDir, 'opencode-home');
  const dirs = { config: join(home, 'config'), data: join(home, 'data'), cache: join(home, 'cache'), state: join(home, 'state') };
  for (const d of Object.values(dirs)) await mkdir(d, { recursive: true });
  await mkdir(join(dirs.config, 'opencode'), { recursive: true });
  const instructions: string[] = [];
  if (request.systemPrompt !== undefined) {
    const promptFile = join(request.scratchDir, 'system-prompt.md');
    await writeFile(promptFile, request.systemPrompt);
    instructions.push(promptFile);
  }
  const hasKey = request.connection.apiKey !== undefined;
  const config = {
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    model: `cairn/${model}`,
    ...(instructions.length > 0 ? { instructions } : {}),
    provider: {
      cairn: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Cairn',
        options: { baseURL: relayUrl, ...(hasKey ? { apiKey: `{env:${OPENCODE_KEY_ENV}}` } : {}) },
        models: { [model]: { name: model } },
      },
    },
  };
  await writeFile(join(dirs.config, 'opencode', 'opencode.json'), JSON.stringify(config, null, 2), { mode: 0o600 });
  Object.assign(env, {
    HOME: home,
    XDG_CONFIG_HOME: dirs.config,
    XDG_DATA_HOME: dirs.data,
    XDG_CACHE_HOME: dirs.cache,
    XDG_STATE_HOME: dirs.state,
    ...QUIET_ENV,
  });
  if (hasKey) env[OPENCODE_KEY_ENV] = request.connection.apiKey!;
  // `--model=<p/m>` is one argument; `--title` skips the extra call that would name the session.
  const resumeArgs = resume !== undefined ? [`--session=${resume}`] : [];
  return { args: [...commandFor(file), 'run', '--format', 'json', `--model=cairn/${model}`, '--title', 'cairn', ...resumeArgs], env };
}
