import { findExecutable } from '../worker/spawn/find-executable.js';
import { commandFor } from '../worker/providers/common/cli-process.js';
import { problem, passed, type CheckResult } from './check.js';
import { cliFacts, type CliProviderId } from './provider-facts.js';
import { askVersion } from './run-version.js';

/**
 * The executable a CLI provider would run: found the way its adapter finds it (the configured
 * path, the npm package next to Cairn, the command on PATH), and asked its version. A CLI that
 * is missing or does not run is a failure when it is the default assistant or was configured
 * explicitly, a warning otherwise (it matters only to workflows that name it).
 */

export interface ExecutableInput {
  provider: CliProviderId;
  /** The configured path (`*_BIN_PATH` over the config key), as the settings resolved it. */
  binaryPath: string | undefined;
  /** Whether `binaryPath` came from the environment (else from config.yaml). */
  binaryPathFromEnv: boolean;
  isDefault: boolean;
  env: NodeJS.ProcessEnv;
}

export async function checkExecutable(input: ExecutableInput): Promise<{ check: CheckResult; file?: string }> {
  const { provider, binaryPath, env } = input;
  const facts = cliFacts[provider];
  const id = `provider.${provider}.executable`;
  const name = `${provider} executable`;
  const configured = binaryPath !== undefined;
  const setting = input.binaryPathFromEnv ? facts.binEnv : `${facts.binConfigKey} in config.yaml`;
  const asDefault = input.isDefault ? ` (${provider} is the default assistant)` : '';
  const serious = input.isDefault || configured;
  const lookup = (await facts.resolver())(binaryPath, env.PATH);
  if (!lookup.ok) {
    if (configured) {
      return {
        check: problem(serious, id, name, `'${binaryPath}' (from ${setting}) does not exist or is not executable${asDefault}`,
          `point ${input.binaryPathFromEnv ? facts.binEnv : facts.binConfigKey} at the ${provider} executable, or remove it to look for ${provider} on PATH`),
      };
    }
    const otherDefault = input.isDefault ? ', or choose another default assistant (defaultAssistant in config.yaml or CAIRN_DEFAULT_ASSISTANT)' : '';
    return {
      check: problem(serious, id, name, `not installed: '${provider}' is not on PATH and ${facts.npmPackage} is not installed next to Cairn${asDefault}`,
        `install it (npm install -g ${facts.npmPackage}) or set ${facts.binEnv} to its path${otherDefault}`),
    };
  }
  const file = lookup.file;
  const where = configured ? `from ${setting}` : findExecutable(provider, env.PATH) === file ? 'on PATH' : `the ${facts.npmPackage} package next to Cairn`;
  const answer = await askVersion(commandFor(file), env);
  if (!answer.ok) {
    return {
      file,
      check: problem(serious, id, name, `${file} (${where}) does not run: ${answer.why}${asDefault}`,
        `run \`${file} --version\` yourself to see why, then reinstall ${facts.npmPackage} or fix ${facts.binEnv}`),
    };
  }
  return { file, check: passed(id, name, `${file} (${where}), ${answer.version}`) };
}
