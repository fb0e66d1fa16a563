import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChildLauncher } from '../../spawn/child-launcher.js';
import { defaultLauncher } from '../../spawn/default-launcher.js';
import { workerEnv } from '../../spawn/worker-env.js';
import { runChatCli } from '../common/chat-cli.js';
import { commandFor, resolveCliExecutable, type ExecutableLookup } from '../common/cli-process.js';
import { planCopilot } from './options.js';
import { CopilotStreamState } from './stream.js';
import { adapterFailure } from '../common/failure-class.js';
import type { AdapterContext, ProviderAdapter, ProviderChunk, ProviderRequest } from '../provider-adapter.js';

/**
 * The GitHub Copilot CLI: `copilot --output-format json --allow-all-tools`, one process group per
 * attempt, the prompt on stdin from a file of the attempt (never on the command line, never
 * shell text).
 *
 * Copilot runs with a custom model provider ("bring your own key": COPILOT_PROVIDER_BASE_URL, a
 * Chat Completions server reached through the loopback relay) in offline mode: no GitHub login,
 * telemetry or update check. Each node of a run gets its own HOME and COPILOT_HOME under its
 * session folder (never the user's `~/.copilot`), where Copilot keeps its sessions: a retry
 * continues its failed attempt's session with `--resume=<id>`, or starts fresh when Copilot no
 * longer has it. The key goes to Copilot in COPILOT_PROVIDER_API_KEY only.
 */

export const COPILOT_NOT_FOUND = 'GitHub Copilot CLI executable was not found at a configured path';

export const DEFAULT_COPILOT_BASE_URL = 'https://api.openai.com/v1';

export function createCopilotAdapter(launcher?: ChildLauncher): ProviderAdapter {
  return { id: 'copilot', run: (request, ctx) => runCopilot(request, ctx, launcher ?? defaultLauncher()) };
}

export const copilotAdapter = createCopilotAdapter();

/** The platform package's binary (what `@github/copilot`'s loader runs), the loader, or `copilot` on PATH. */
export function resolveCopilotExecutable(binaryPath: string | undefined, pathEnv: string | undefined): ExecutableLookup {
  return resolveCliExecutable(
    {
      notFound: COPILOT_NOT_FOUND,
      envVar: 'COPILOT_BIN_PATH',
      configKey: 'assistants.copilot.copilotBinaryPath',
      command: 'copilot',
      packageEntry: [`@github/copilot-${process.platform}-${process.arch}/copilot`, '@github/copilot/npm-loader.js'],
      packageName: '@github/copilot',
    },
    binaryPath,
    pathEnv,
  );
}

async function* runCopilot(request: ProviderRequest, ctx: AdapterContext, launcher: ChildLauncher): AsyncGenerator<ProviderChunk> {
  const env = { ...request.connection.env };
  const model = request.model;
  if (model === undefined) {
    yield { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', "Copilot needs a model: set the node's or workflow's `model`, or assistants.copilot.model") };
    return;
  }
  const exe = resolveCopilotExecutable(request.connection.binaryPath, env.PATH ?? workerEnv().PATH);
  if (!exe.ok) {
    yield { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', exe.error) };
    return;
  }
  const plan = await planCopilot(request, request.scratchDir, { ...workerEnv(), ...env });
  if (!plan.ok) {
    yield { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', `Copilot cannot run this node: ${plan.error}`) };
    return;
  }
  try {
    yield* runChatCli(request, ctx, launcher, {
      label: 'Copilot',
      name: 'cairn-copilot',
      defaultBaseUrl: DEFAULT_COPILOT_BASE_URL,
      newState: () => new CopilotStreamState(),
      prepare: async (relayUrl, resume) => {
        // Kept per run and node (Copilot keeps its sessions under COPILOT_HOME), so a retry can continue one.
        const home = join(request.sessionDir ?? request.scratchDir, 'copilot-home');
        await mkdir(join(home, '.copilot'), { recursive: true });
        Object.assign(env, {
          HOME: home,
          COPILOT_HOME: join(home, '.copilot'),
          COPILOT_OFFLINE: 'true',
          COPILOT_AUTO_UPDATE: 'false',
          COPILOT_PROVIDER_TYPE: 'openai',
          COPILOT_PROVIDER_WIRE_API: 'completions',
          COPILOT_PROVIDER_BASE_URL: relayUrl,
          // The model goes in the environment, never as an argument.
          COPILOT_MODEL: model,
        });
        Object.assign(env, plan.env);
        if (request.connection.apiKey !== undefined) env.COPILOT_PROVIDER_API_KEY = request.connection.apiKey;
        const resumeArgs = resume !== undefined ? [`--resume=${resume}`] : [];
        return { args: [...commandFor(exe.file), '--output-format', 'json', '--no-auto-update', ...plan.args, ...resumeArgs], env };
      },
      // `--resume=<id>` naming a session Copilot does not have: "No session, task, or name matched '<id>'".
      sessionNotFound: (_state, stderr) => /No session, task, or name matched/i.test(stderr),
    });
  } finally {
    for (const file of plan.secretFiles) await rm(file, { force: true });
  }
}
