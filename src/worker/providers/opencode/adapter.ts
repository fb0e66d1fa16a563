import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChildLauncher } from '../../spawn/child-launcher.js';
import { defaultLauncher } from '../../spawn/default-launcher.js';
import { workerEnv } from '../../spawn/worker-env.js';
import { runChatCli } from '../common/chat-cli.js';
import { commandFor, resolveCliExecutable, type ExecutableLookup } from '../common/cli-process.js';
import { adapterFailure } from '../common/failure-class.js';
import { loadMcpServers, type McpServer } from '../common/mcp-config.js';
import { buildOpencodeConfig, clashingAgentName, OPENCODE_AGENT_NAMES } from './config.js';
import { isWithheld, permissionRules } from './permission.js';
import { OpencodeStreamState } from './stream.js';
import type { AdapterContext, ProviderAdapter, ProviderChunk, ProviderRequest } from '../provider-adapter.js';

/**
 * The OpenCode CLI: `opencode run --format json`, one process group per attempt, the prompt on
 * stdin from a file of the attempt (never on the command line, never shell text).
 *
 * Each node of a run gets its own HOME and XDG folders under its session folder (never the
 * user's `~/.config/opencode` or `~/.local/share/opencode`), where OpenCode keeps its sessions: a
 * retry continues its failed attempt's session with `--session`, or starts fresh when OpenCode no
 * longer has it. The global config there defines one provider,
 * `cairn` (`@ai-sdk/openai-compatible`: any Chat Completions server), reached through a loopback
 * relay that notes each answer's status, `Retry-After` and usage, and the node's permission level
 * and options (config.ts, permission.ts). The key goes to OpenCode in an
 * environment variable the config names (`{env:...}`), never in a file. OpenCode retries a 429
 * or 5xx itself; the adapter stops it at the first refused model call, so Cairn's retry policy
 * decides.
 */

export const OPENCODE_NOT_FOUND = 'OpenCode executable was not found at a configured path';

/** The server when none is configured. */
export const DEFAULT_OPENCODE_BASE_URL = 'https://api.openai.com/v1';

export { OPENCODE_KEY_ENV } from './config.js';

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

/**
 * The server's environment must not lay other config over the attempt's (its permission rules
 * above all): these would add a config file, folder, inline config or permission map. Empty is
 * unset to OpenCode.
 */
const NO_OUTSIDE_CONFIG = {
  OPENCODE_CONFIG: '',
  OPENCODE_CONFIG_DIR: '',
  OPENCODE_CONFIG_CONTENT: '',
  OPENCODE_PERMISSION: '',
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
    yield misconfigured("OpenCode needs a model: set the node's or workflow's `model`, or assistants.opencode.model");
    return;
  }
  const exe = resolveOpencodeExecutable(request.connection.binaryPath, env.PATH ?? workerEnv().PATH);
  if (!exe.ok) {
    yield misconfigured(exe.error);
    return;
  }
  const clash = clashingAgentName(request.options.agents);
  if (clash !== undefined) {
    yield misconfigured(`agent '${clash}' is the name of one of OpenCode's own agents (${OPENCODE_AGENT_NAMES.join(', ')}): rename it`);
    return;
  }
  let mcpServers: Record<string, McpServer> = {};
  if (request.options.mcp !== undefined) {
    const loaded = await loadMcpServers(request.options.mcp, request.cwd, { ...workerEnv(), ...env });
    if (!loaded.ok) {
      yield misconfigured(loaded.error);
      return;
    }
    mcpServers = loaded.servers;
  }
  // The rules the config will hold: a call to a tool they withhold is a refusal, not a failure.
  const rules = permissionRules(request.options);
  yield* runChatCli(request, ctx, launcher, {
    label: 'OpenCode',
    name: 'cairn-opencode',
    defaultBaseUrl: DEFAULT_OPENCODE_BASE_URL,
    newState: () => new OpencodeStreamState((tool) => isWithheld(rules, tool)),
    prepare: (relayUrl, resume) => prepareOpencode(request, model, exe.file, env, relayUrl, resume, mcpServers),
    // `--session` naming a session OpenCode does not have: "Error: Session not found".
    sessionNotFound: (_state, stderr) => /Session not found/i.test(stderr),
  });
}

function misconfigured(message: string): ProviderChunk {
  return { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', message) };
}

async function prepareOpencode(
  request: ProviderRequest,
  model: string,
  file: string,
  env: Record<string, string>,
  relayUrl: string,
  resume: string | undefined,
  mcpServers: Record<string, McpServer>,
) {
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
  const config = buildOpencodeConfig({ request, model, relayUrl, instructions, mcpServers });
  await writeFile(join(dirs.config, 'opencode', 'opencode.json'), config.text, { mode: 0o600 });
  Object.assign(env, {
    HOME: home,
    XDG_CONFIG_HOME: dirs.config,
    XDG_DATA_HOME: dirs.data,
    XDG_CACHE_HOME: dirs.cache,
    XDG_STATE_HOME: dirs.state,
    ...QUIET_ENV,
    ...NO_OUTSIDE_CONFIG,
    ...config.env,
  });
  // `--model=<p/m>` is one argument; `--title` skips the extra call that would name the session.
  const resumeArgs = resume !== undefined ? [`--session=${resume}`] : [];
  const args = [...commandFor(file), 'run', '--format', 'json', `--model=cairn/${model}`, '--title', 'cairn', ...resumeArgs];
  return { args, env };
}
