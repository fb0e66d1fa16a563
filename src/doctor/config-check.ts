import { existsSync } from 'node:fs';
import { loadSettings } from '../shared/config.js';
import { resolveProviderSettings, type ProviderSettings } from '../shared/providers/provider-settings.js';
import { describeUnknownProvider, isRegisteredProvider } from '../shared/providers/registry.js';
import { DEFAULT_ASSISTANT } from '../models/model-binding.js';
import { failed, passed, type CheckResult } from './check.js';

/**
 * The settings `cairn serve` would start with in this shell: config.yaml and the environment.
 * A config the server would refuse is a failure; the provider checks then go on with the
 * environment alone, so one bad key does not hide the rest.
 */

export interface DoctorSettings {
  check: CheckResult;
  providers: ProviderSettings;
  /** The default assistant (`claude` when none is set). */
  defaultAssistant: string;
}

const ID = 'config';
const NAME = 'config';

export function readDoctorSettings(env: NodeJS.ProcessEnv, configFile: string): DoctorSettings {
  let providers: ProviderSettings;
  let refused: string | undefined;
  try {
    providers = loadSettings(env).providers;
  } catch (err) {
    refused = (err as Error).message;
    providers = providersFromEnv(env);
  }
  const defaultAssistant = providers.defaultAssistant ?? DEFAULT_ASSISTANT;
  const from = providers.defaultAssistantFromEnv ? 'CAIRN_DEFAULT_ASSISTANT' : providers.defaultAssistant !== undefined ? 'defaultAssistant in config.yaml' : 'the built-in default';
  if (refused !== undefined) {
    return { providers, defaultAssistant, check: failed(ID, NAME, `cairn serve would refuse to start: ${refused}`, `fix ${configFile} (or the environment variable named), then run the doctor again`) };
  }
  if (!isRegisteredProvider(defaultAssistant)) {
    return {
      providers,
      defaultAssistant,
      check: failed(ID, NAME, `the default assistant (from ${from}) is not a provider: ${describeUnknownProvider(defaultAssistant)}`, `set ${from === 'CAIRN_DEFAULT_ASSISTANT' ? 'CAIRN_DEFAULT_ASSISTANT' : `defaultAssistant in ${configFile}`} to one of them`),
    };
  }
  const file = existsSync(configFile) ? `${configFile} is valid` : `no ${configFile}: defaults apply`;
  return { providers, defaultAssistant, check: passed(ID, NAME, `${file}; default assistant ${defaultAssistant} (from ${from})`) };
}

/** The provider settings of the environment alone; a malformed watchdog variable is left out (the config line names it). */
function providersFromEnv(env: NodeJS.ProcessEnv): ProviderSettings {
  try {
    return resolveProviderSettings({}, env);
  } catch {
    const { CAIRN_PROVIDER_FIRST_EVENT_TIMEOUT_MS: _first, CAIRN_PROVIDER_IDLE_TIMEOUT_MS: _idle, ...rest } = env;
    return resolveProviderSettings({}, rest);
  }
}
