import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChildLauncher } from '../../spawn/child-launcher.js';
import { defaultLauncher } from '../../spawn/default-launcher.js';
import { workerEnv } from '../../spawn/worker-env.js';
import { commandFor, launchCli, resolveCliExecutable, type ExecutableLookup } from '../common/cli-process.js';
import { claudeOptionArgs } from './options.js';
import { canBypassPermissions, permissionArgs, settingsAllowRules } from './permissions.js';
import { ClaudeStreamState } from './stream.js';
import { adapterFailure } from '../common/failure-class.js';
import type { AdapterContext, AdapterFailure, ProviderAdapter, ProviderChunk, ProviderEnd, ProviderRequest } from '../provider-adapter.js';
import { resumeOrCold, type ResumeSeen } from '../common/session-resume.js';
import { unreadableOf } from '../common/stream-lines.js';

/**
 * The Claude Code CLI: `claude -p --output-format stream-json --verbose`, one process group per
 * attempt, at the node's permission level (permissions.ts) with the node's options
 * (options.ts). The prompt goes in on stdin from a file of the attempt (never on the
 * command line, where a prompt starting with `-` would be read as a flag, and never through
 * shell text: the small `sh -c` wrapper only redirects stdin from a path it reads from its
 * environment). The executable is an npm package's `cli.js` (run under this Node) or a native
 * binary (run directly).
 */

/** The contract's text for an executable that is not where the configuration says. */
export const CLAUDE_NOT_FOUND = 'Claude Code executable was not found at a configured path';

export function createClaudeAdapter(launcher?: ChildLauncher): ProviderAdapter {
  return { id: 'claude', run: (request, ctx) => runClaude(request, ctx, launcher ?? defaultLauncher()) };
}

export const claudeAdapter = createClaudeAdapter();

/** Where the CLI is: the configured path (env, then config) or `claude` on PATH; or why not. */
export function resolveClaudeExecutable(binaryPath: string | undefined, pathEnv: string | undefined): ExecutableLookup {
  return resolveCliExecutable(
    { notFound: CLAUDE_NOT_FOUND, envVar: 'CLAUDE_BIN_PATH', configKey: 'assistants.claude.claudeBinaryPath', command: 'claude' },
    binaryPath,
    pathEnv,
  );
}

/**
 * One attempt. With `resumeSessionId` (the session its node's failed attempt left) the CLI is
 * asked to `--resume` it; when the CLI no longer knows that session (another machine, a cleared
 * `~/.claude`), the attempt runs again from a fresh session, recorded as `resume-failed-cold`.
 */
function runClaude(request: ProviderRequest, ctx: AdapterContext, launcher: ChildLauncher): AsyncGenerator<ProviderChunk> {
  return resumeOrCold(request.resumeSessionId, ctx.signal, (resume, seen) => runClaudeOnce(request, ctx, launcher, resume, seen));
}

/** One run of the CLI; `seen.sessionNotFound` says, by its end, whether `--resume` named an unknown session. */
async function* runClaudeOnce(
  request: ProviderRequest,
  ctx: AdapterContext,
  launcher: ChildLauncher,
  resume: string | undefined,
  seen: ResumeSeen,
): AsyncGenerator<ProviderChunk> {
  const env = { ...request.connection.env };
  const pathEnv = env.PATH ?? workerEnv().PATH;
  const exe = resolveClaudeExecutable(request.connection.binaryPath, pathEnv);
  if (!exe.ok) {
    yield { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', exe.error) };
    return;
  }
  await mkdir(request.scratchDir, { recursive: true });
  const promptFile = join(request.scratchDir, 'prompt.md');
  await writeFile(promptFile, request.prompt);
  if (request.connection.apiKey !== undefined) env.ANTHROPIC_API_KEY = request.connection.apiKey;
  if (request.connection.authToken !== undefined && request.connection.apiKey === undefined) {
    // A subscription login: the server's own ANTHROPIC_API_KEY would win over it, so it is masked.
    env.CLAUDE_CODE_OAUTH_TOKEN = request.connection.authToken;
    env.ANTHROPIC_API_KEY = '';
  }
  if (request.connection.baseUrl !== undefined) env.ANTHROPIC_BASE_URL = request.connection.baseUrl;
  const invocation = await claudeInvocation(request, exe.file, env, resume);
  if (!invocation.ok) {
    yield { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', invocation.error) };
    return;
  }
  const forget = () => Promise.all(invocation.privateFiles.map((file) => rm(file, { force: true })));
  const launched = await launchCli({ launcher, ctx, args: invocation.args, cwd: request.cwd, env, promptFile, name: 'cairn-claude' });
  if (!launched.ok) {
    await forget();
    yield { type: 'end', called: false, observations: {}, failure: adapterFailure('misconfigured', `cannot start Claude Code: ${launched.error}`) };
    return;
  }
  const proc = launched.proc;
  const state = new ClaudeStreamState(invocation.hookDenials, env.ANTHROPIC_BASE_URL || 'https://api.anthropic.com');
  let failure: AdapterFailure | undefined;
  try {
    for await (const line of proc.lines) {
      const reading = state.read(line);
      for (const chunk of reading.chunks) yield chunk;
      if (reading.stop) {
        failure = reading.stop;
        await proc.stop();
        break;
      }
    }
    const end = await proc.exited();
    if (ctx.signal.aborted) await proc.stop();
    failure ??= state.resultFailure ?? exitFailure(state, end.code, proc.stderr());
  } finally {
    proc.finish();
    await forget();
  }
  seen.sessionNotFound = state.sessionNotFound;
  yield endOf(state, failure);
}

/**
 * The CLI's argv for one run: print mode with the stream-json events, the model, the node's
 * permission level and options, `--json-schema`, `--resume` (with `--fork-session` for another node's session). Adds the options' variables to `env`.
 */
async function claudeInvocation(
  request: ProviderRequest,
  file: string,
  env: Record<string, string>,
  resume: string | undefined,
): Promise<{ ok: true; args: string[]; privateFiles: string[]; hookDenials: string[] } | { ok: false; error: string }> {
  const cliEnv = { ...workerEnv(), ...env };
  const options = await claudeOptionArgs(request, cliEnv);
  if (!options.ok) return options;
  Object.assign(env, options.env);
  const level = request.options.permissions;
  const permissions = permissionArgs({
    level,
    extraDirs: request.options.extraDirs,
    mcpServers: options.mcpServers,
    canBypass: canBypassPermissions(cliEnv),
    settingsAllowRules: level === 'read_only' ? await settingsAllowRules(request.cwd, cliEnv, request.options.settingSources) : [],
  });
  const args = [
    ...commandFor(file),
    '-p',
    '--output-format=stream-json',
    '--verbose',
    ...(request.model !== undefined ? [`--model=${request.model}`] : []),
    ...permissions,
    ...options.args,
    ...(request.outputFormat !== undefined ? [`--json-schema=${JSON.stringify(request.outputFormat)}`] : []),
    // Another node's session is forked, so that node's own history stays as it was.
    ...(resume !== undefined ? [`--resume=${resume}`, ...(request.forkSession ? ['--fork-session'] : [])] : []),
  ];
  return { ok: true, args, privateFiles: options.privateFiles, hookDenials: options.hookDenials };
}

function exitFailure(state: ClaudeStreamState, code: number | null, stderr: string): AdapterFailure | undefined {
  if (state.finished) return undefined;
  const tail = stderr.trim().slice(-500);
  if (!state.sawLine && code === 0) return adapterFailure('transient', 'Claude Code ended without a single event');
  const how = code === null ? 'was killed' : `exited with code ${code}`;
  if (/invalid api key|please run \/login|authentication/i.test(tail)) return adapterFailure('auth', `Claude Code ${how}: ${tail}`);
  return adapterFailure(state.sawLine ? 'transient' : 'unknown', `Claude Code ${how} before its result${tail ? `: ${tail}` : ''}`);
}

function endOf(state: ClaudeStreamState, failure: AdapterFailure | undefined): ProviderEnd {
  const text = state.resultText ?? state.text;
  return {
    type: 'end',
    // A paid call happened once the CLI reported an answer or a result.
    called: state.answered || state.finished,
    ...(failure === undefined ? { text: state.structured !== undefined ? JSON.stringify(state.structured) : text } : { text }),
    ...(state.structured !== undefined ? { structured: state.structured } : {}),
    observations: state.observations,
    ...(state.resolvedModel !== undefined ? { resolvedModel: state.resolvedModel } : {}),
    ...(state.sessionId !== undefined ? { sessionId: state.sessionId } : {}),
    ...(failure !== undefined ? { failure } : {}),
    ...unreadableOf(state.unreadable),
  };
}
