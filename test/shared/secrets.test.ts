import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadInstallKey } from '../../src/shared/secrets/install-key.js';
import { openSecret, sealSecret } from '../../src/shared/secrets/sealed.js';
import { sourceModule, tsxImport } from '../helpers/built-files.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

/** The install key (env or key file) and sealing with it: real files, real processes. */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const hexKey = 'ab'.repeat(32);
const installKeyModule = sourceModule('src/shared/secrets/install-key.ts');
const builtApiMain = fileURLToPath(new URL('../../dist/api/main.js', import.meta.url));

function runNode(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

describe('the install key', () => {
  it('creates the key file on first use (64 hex and a newline, mode 0600) and reads the same key after', async () => {
    const first = loadInstallKey({ env: {}, file: home.paths.installKey });
    expect(first.source).toBe('file');
    const text = await readFile(home.paths.installKey, 'utf8');
    expect(text).toMatch(/^[0-9a-f]{64}\n$/);
    expect((await stat(home.paths.installKey)).mode & 0o777).toBe(0o600);
    const again = loadInstallKey({ env: {}, file: home.paths.installKey });
    expect(again.key.equals(first.key)).toBe(true);
    expect(again.id).toBe(first.id);
  });

  it('gives processes that start together one key', async () => {
    const script = `import(${JSON.stringify(installKeyModule)}).then((m) => console.log(m.loadInstallKey({ env: {}, file: process.argv[1] }).id))`;
    const results = await Promise.all(
      Array.from({ length: 6 }, () => runNode([...tsxImport, '-e', script, home.paths.installKey], {})),
    );
    const ids = new Set(results.map((r) => r.output.trim()));
    expect(results.every((r) => r.code === 0)).toBe(true);
    expect(ids.size).toBe(1);
    expect(loadInstallKey({ env: {}, file: home.paths.installKey }).id).toBe([...ids][0]);
  });

  it('takes TOKEN_ENCRYPTION_KEY over the file, and refuses one that is not 64 hex characters without quoting it', () => {
    const fromEnv = loadInstallKey({ env: { TOKEN_ENCRYPTION_KEY: hexKey }, file: home.paths.installKey });
    expect(fromEnv.source).toBe('env');
    expect(fromEnv.key.toString('hex')).toBe(hexKey);
    for (const bad of ['short-secret-value', `${hexKey}00`, 'zz'.repeat(32)]) {
      let message = '';
      try {
        loadInstallKey({ env: { TOKEN_ENCRYPTION_KEY: bad }, file: home.paths.installKey });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toContain('TOKEN_ENCRYPTION_KEY must be 64 hexadecimal characters');
      expect(message).toContain('openssl rand -hex 32');
      expect(message).not.toContain(bad);
    }
  });

  it('refuses a malformed key file with a clear error and never replaces it', async () => {
    await mkdir(home.home, { recursive: true });
    await writeFile(home.paths.installKey, 'not a key\n', { mode: 0o600 });
    expect(() => loadInstallKey({ env: {}, file: home.paths.installKey })).toThrow(
      /install key file .* is malformed: it must hold 64 hexadecimal characters .* does not replace it/,
    );
    expect(await readFile(home.paths.installKey, 'utf8')).toBe('not a key\n');
  });

  it('stops the API process at start when TOKEN_ENCRYPTION_KEY is bad, saying how to make one', async () => {
    const result = await runNode([builtApiMain], { CAIRN_HOME: home.home, TOKEN_ENCRYPTION_KEY: 'letmein' });
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('TOKEN_ENCRYPTION_KEY must be 64 hexadecimal characters');
    expect(result.output).toContain('openssl rand -hex 32');
    expect(result.output).not.toContain('letmein');
  });
});

describe('sealed values', () => {
  const key = () => loadInstallKey({ env: { TOKEN_ENCRYPTION_KEY: hexKey }, file: home.paths.installKey });

  it('round-trips, with a fresh IV each time and the format version and key id in front', () => {
    const secret = `s3cret-${randomBytes(4).toString('hex')}`;
    const a = sealSecret(key(), secret, 'run-env:r1');
    const b = sealSecret(key(), secret, 'run-env:r1');
    expect(a).not.toBe(b);
    expect(a).toMatch(new RegExp(`^cairn:v1:${key().id}:[A-Za-z0-9+/=]+$`));
    expect(a).not.toContain(secret);
    expect(openSecret(key(), a, 'run-env:r1')).toBe(secret);
    expect(openSecret(key(), b, 'run-env:r1')).toBe(secret);
  });

  it('does not open for another context, when altered, under another key, or in an unknown version', () => {
    const sealed = sealSecret(key(), 'value', 'provider-key:u1:anthropic');
    expect(() => openSecret(key(), sealed, 'provider-key:u2:anthropic')).toThrow(/does not open/);
    const blob = Buffer.from(sealed.split(':')[3]!, 'base64');
    blob[blob.length - 1]! ^= 1;
    expect(() => openSecret(key(), `cairn:v1:${key().id}:${blob.toString('base64')}`, 'provider-key:u1:anthropic')).toThrow(/does not open/);
    const other = loadInstallKey({ env: { TOKEN_ENCRYPTION_KEY: 'cd'.repeat(32) }, file: home.paths.installKey });
    expect(() => openSecret(other, sealed, 'provider-key:u1:anthropic')).toThrow(/sealed with another install key/);
    expect(() => openSecret(key(), sealed.replace(':v1:', ':v9:'), 'provider-key:u1:anthropic')).toThrow(/format v9/);
    expect(() => openSecret(key(), 'plain text', 'x')).toThrow(/not in a format/);
  });
});
