import { stat } from 'node:fs/promises';
import { CairnError } from '../shared/errors.js';
import { INSTALL_KEY_ENV, loadInstallKey, readKeyFile } from '../shared/secrets/install-key.js';
import { failed, passed, problem, type CheckResult } from './check.js';

/**
 * The install key that seals run secrets and stored credentials: TOKEN_ENCRYPTION_KEY when set,
 * else the key file, which must hold 64 hex characters and be readable by its owner only
 * (mode 0600). The doctor never creates the file (`cairn serve` does on its first start) and
 * prints only the key's public fingerprint.
 */

const ID = 'install-key';
const NAME = 'install key';

export interface InstallKeyInput {
  file: string;
  env: NodeJS.ProcessEnv;
  /** Whether the home's database exists (then a missing key is a lost key). */
  databaseExists: boolean;
  /** Credentials users stored, sealed with the key (0 when unknown). */
  sealedCredentials: number;
}

export async function checkInstallKey(input: InstallKeyInput): Promise<CheckResult> {
  const { file, env } = input;
  if (env[INSTALL_KEY_ENV] !== undefined && env[INSTALL_KEY_ENV] !== '') {
    try {
      const key = loadInstallKey({ env, file });
      return passed(ID, NAME, `from ${INSTALL_KEY_ENV} (id ${key.id}); the key file ${file} is not used`);
    } catch (err) {
      return failed(ID, NAME, (err as Error).message, `set ${INSTALL_KEY_ENV} to the key (64 hex characters) the home's secrets were sealed with, or unset it to use ${file}`);
    }
  }
  let mode: number;
  try {
    mode = (await stat(file)).mode & 0o777;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      return failed(ID, NAME, `${file} cannot be looked at: ${(err as Error).message}`, 'make its folder readable by the user that runs `cairn serve`');
    }
    if (!input.databaseExists) return problem(false, ID, NAME, `no key yet at ${file}`, '`cairn serve` makes one on its first start (back it up with the database)');
    const sealed = input.sealedCredentials;
    return problem(
      sealed > 0,
      ID,
      NAME,
      `${file} is missing but the database exists: what was sealed with the key (run secrets${sealed > 0 ? `, ${sealed} stored credential(s)` : ''}) cannot be opened without it`,
      `restore ${file} from the backup made with the database, or set ${INSTALL_KEY_ENV} to the key; otherwise \`cairn serve\` makes a new key and those secrets must be given again`,
    );
  }
  const octal = `0${mode.toString(8).padStart(3, '0')}`;
  let key;
  try {
    key = readKeyFile(file);
  } catch (err) {
    const unreadable = err instanceof CairnError && /cannot be read/.test(err.message);
    return failed(ID, NAME, `${(err as Error).message} (mode ${octal})`,
      unreadable ? `make it readable by the user that runs \`cairn serve\`, and by no one else: chown that user ${file}; chmod 600 ${file}` : `restore ${file} from a backup (or set ${INSTALL_KEY_ENV})`);
  }
  if ((mode & 0o077) !== 0) {
    return failed(ID, NAME, `${file} has mode ${octal}: other users can read the key that opens every sealed secret`, `chmod 600 ${file}`);
  }
  return passed(ID, NAME, `${file} (mode ${octal}, id ${key!.id})`);
}
