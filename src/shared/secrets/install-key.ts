import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { CairnError } from '../errors.js';

/**
 * The install key: one 32-byte AES-256-GCM key per Cairn home, shared by the API and the
 * supervisor, that seals whatever Cairn must keep secret at rest (a run's `config.env` values
 * today, provider credentials later). It comes from `TOKEN_ENCRYPTION_KEY` (64 hex characters)
 * when set, else from the key file `$CAIRN_HOME/install.key`, which the first process to start
 * creates. A key that is not 64 hex characters is a startup error; a malformed key file is never
 * replaced (whatever it sealed could then never be read again).
 */

export const INSTALL_KEY_ENV = 'TOKEN_ENCRYPTION_KEY';
const KEY_HEX = /^[0-9a-fA-F]{64}$/;
const MAKE_ONE = 'make one with: openssl rand -hex 32';

export interface InstallKey {
  /** 32 bytes. Never logged, never sent anywhere. */
  readonly key: Buffer;
  /** A short public fingerprint of the key, written into each sealed value to tell keys apart. */
  readonly id: string;
  /** Where the key came from, for messages (never the key itself). */
  readonly source: 'env' | 'file';
}

function fingerprint(key: Buffer): string {
  return createHash('sha256').update('cairn install key id\0').update(key).digest('hex').slice(0, 12);
}

function fromHex(hex: string, source: InstallKey['source']): InstallKey {
  const key = Buffer.from(hex, 'hex');
  return { key, id: fingerprint(key), source };
}

/** What is wrong with a would-be key, described without quoting it. */
function describeBadKey(text: string): string {
  if (text.length === 0) return 'it is empty';
  if (text.length !== 64) return `it has ${text.length} characters`;
  return 'it holds characters other than 0-9 and a-f';
}

/** Reads the key file; undefined when there is none. Throws when it is there and malformed (`cairn doctor` reads it too). */
export function readKeyFile(file: string): InstallKey | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CairnError('INSTALL_KEY_INVALID', `The install key file ${file} cannot be read: ${(err as Error).message}`, undefined, { cause: err });
  }
  const hex = text.trim();
  if (!KEY_HEX.test(hex)) {
    throw new CairnError(
      'INSTALL_KEY_INVALID',
      `The install key file ${file} is malformed: it must hold 64 hexadecimal characters (and a newline), but ${describeBadKey(hex)}. ` +
        'Cairn does not replace it, because the values sealed with it (run secrets, provider keys) can only be read with it: ' +
        `restore the original file, set ${INSTALL_KEY_ENV}, or delete the file to make a new key (secrets sealed with the old one must then be given again).`,
    );
  }
  return fromHex(hex, 'file');
}

/**
 * Creates the key file atomically: the key is written whole to a private temporary file (mode
 * 0600) which is then hard-linked to the final name. `link` fails when the name exists, so of
 * two processes starting at once exactly one key wins and both read that one.
 */
function createKeyFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, `${randomBytes(32).toString('hex')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(temp);
  }
}

/** The install key from the environment or the key file (created on first use). */
export function loadInstallKey(opts: { env: NodeJS.ProcessEnv; file: string }): InstallKey {
  const fromEnv = opts.env[INSTALL_KEY_ENV];
  if (fromEnv !== undefined && fromEnv !== '') {
    const hex = fromEnv.trim();
    if (!KEY_HEX.test(hex)) {
      throw new CairnError(
        'INSTALL_KEY_INVALID',
        `${INSTALL_KEY_ENV} must be 64 hexadecimal characters (a 32-byte key), but ${describeBadKey(hex)}; ${MAKE_ONE}, or unset it to use the key file ${opts.file}`,
      );
    }
    return fromHex(hex, 'env');
  }
  const existing = readKeyFile(opts.file);
  if (existing) return existing;
  createKeyFile(opts.file);
  const created = readKeyFile(opts.file);
  if (!created) throw new CairnError('INSTALL_KEY_INVALID', `The install key file ${opts.file} vanished right after it was created`);
  return created;
}

/** Loads the key once, on first use; the processes call it at start so a bad key stops them there. */
export function lazyInstallKey(opts: { env: NodeJS.ProcessEnv; file: string }): () => InstallKey {
  let loaded: InstallKey | undefined;
  return () => (loaded ??= loadInstallKey(opts));
}
