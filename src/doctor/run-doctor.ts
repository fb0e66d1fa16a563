import type { HomePaths } from '../shared/paths.js';
import { providerIds, type ProviderId } from '../shared/providers/registry.js';
import type { CheckResult } from './check.js';
import { readDoctorSettings, type DoctorSettings } from './config-check.js';
import { checkCredential, type StoredCredentials } from './credential-check.js';
import { checkDatabase } from './database-check.js';
import { readDatabaseFile, type DatabaseFile } from './database-look.js';
import { checkDiskSpace } from './disk-space-check.js';
import { checkExecutable } from './executable-check.js';
import { checkInstallKey } from './install-key-check.js';
import { checkProviderServer, type ReachCache } from './provider-server-check.js';
import { baseUrlEnv, cliFacts, firstSet, isCliProvider } from './provider-facts.js';
import { checkServer, type ServerTarget } from './server-check.js';

/**
 * `cairn doctor`: every check of an install, in the order they are printed. The home-wide
 * checks come first (server, database, install key, disk space, config), then each provider's
 * executable, credential and configured server. Independent checks run at once.
 */

export interface DoctorInput {
  paths: HomePaths;
  env: NodeJS.ProcessEnv;
  server: ServerTarget;
}

export async function runDoctor(input: DoctorInput): Promise<CheckResult[]> {
  const { paths, env } = input;
  const settings = readDoctorSettings(env, paths.config);
  const databaseFile = readDatabaseFile(paths.database);
  const server = checkServer(input.server, paths.serverFile);
  const database = Promise.all([server, databaseFile]).then(([state, file]) =>
    checkDatabase({ path: paths.database, file, server: state.answering }),
  );
  const installKey = databaseFile.then((file) =>
    checkInstallKey({ file: paths.installKey, env, databaseExists: file.state !== 'missing', sealedCredentials: sealedCount(file) }),
  );
  const reached: ReachCache = new Map();
  const providers = providerIds.map((provider) => checkProvider(provider, settings, env, databaseFile, reached));
  const [serverState, databaseCheck, keyCheck, diskCheck, providerChecks] = await Promise.all([
    server,
    database,
    installKey,
    checkDiskSpace(paths.home),
    Promise.all(providers),
  ]);
  return [serverState.check, databaseCheck, keyCheck, diskCheck, settings.check, ...providerChecks.flat()];
}

function sealedCount(file: DatabaseFile): number {
  return file.state === 'read' ? [...file.look.credentialUsers.values()].reduce((a, b) => a + b, 0) : 0;
}

function storedCredentials(file: DatabaseFile): StoredCredentials | undefined {
  if (file.state === 'missing') return undefined;
  if (file.state === 'unreadable') return { ok: false, why: 'the database cannot be opened' };
  return { ok: true, users: file.look.credentialUsers };
}

/**
 * One provider's lines. A CLI that is not found gets its executable line only: its key and its
 * server matter once it is installed.
 */
async function checkProvider(
  provider: ProviderId,
  settings: DoctorSettings,
  env: NodeJS.ProcessEnv,
  databaseFile: Promise<DatabaseFile>,
  reached: ReachCache,
): Promise<CheckResult[]> {
  const assistant = settings.providers.assistants[provider] ?? {};
  const isDefault = settings.defaultAssistant === provider;
  const lines: CheckResult[] = [];
  if (isCliProvider(provider)) {
    const facts = cliFacts[provider];
    const executable = await checkExecutable({
      provider,
      binaryPath: settings.providers.connections[provider]?.binaryPath,
      binaryPathFromEnv: Boolean(env[facts.binEnv]?.trim()),
      isDefault,
      env,
    });
    lines.push(executable.check);
    if (executable.file === undefined) return lines;
  }
  const baseUrl = firstSet(assistant.baseUrl, `assistants.${provider}.baseUrl`, env, baseUrlEnv[provider]);
  lines.push(
    checkCredential({
      provider,
      env,
      configKey: assistant.apiKey,
      stored: storedCredentials(await databaseFile),
      baseUrl: baseUrl?.value,
      isDefault,
    }),
  );
  if (baseUrl !== undefined) lines.push(await checkProviderServer(provider, baseUrl, reached));
  return lines;
}
