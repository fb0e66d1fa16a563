import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { assertBuilt, runCli } from './cli-process.js';

/**
 * The CLI shares its HTTP schemas with the API (`src/wire/`), but it is a client: loading any
 * command must never load the server's packages. A module hook in the real `cairn` process makes
 * importing one of them fail loudly, so a stray import anywhere in a command's graph fails here.
 */

const serverPackages = ['fastify', '@fastify/swagger', 'fastify-type-provider-zod', 'better-sqlite3', 'piscina'];

let dir: string;
let forbid: string;
beforeAll(async () => {
  assertBuilt();
  dir = await mkdtemp(join(tmpdir(), 'cairn-cli-imports-'));
  const hooks = `const forbidden = ${JSON.stringify(serverPackages)};
export async function resolve(specifier, context, next) {
  if (forbidden.includes(specifier)) throw new Error('the CLI loaded ' + specifier + ' (from ' + context.parentURL + ')');
  return next(specifier, context);
}`;
  await writeFile(join(dir, 'hooks.mjs'), hooks);
  forbid = join(dir, 'forbid.mjs');
  await writeFile(forbid, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`);
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function cliWithoutServerPackages(...argv: string[]) {
  return cliWithEnv({}, ...argv);
}

async function cliWithEnv(extra: NodeJS.ProcessEnv, ...argv: string[]) {
  const { PORT: _port, CAIRN_URL: _url, ...env } = process.env;
  return runCli(argv, { env: { ...env, NODE_OPTIONS: `--import=${pathToFileURL(forbid).href}`, NO_COLOR: '1', ...extra }, cwd: dir });
}

describe('the cairn command stays a light client', () => {
  it('the hook works: a process that does load fastify fails', async () => {
    const { spawnSync } = await import('node:child_process');
    const probe = spawnSync(process.execPath, ['--import', pathToFileURL(forbid).href, '--input-type=module', '-e', "await import('fastify')"], {
      encoding: 'utf8',
    });
    expect(probe.status).not.toBe(0);
    expect(probe.stderr).toContain('the CLI loaded fastify');
  });

  it('loads every command (the help lists them all) without a server package', async () => {
    const { code, stdout, stderr } = await cliWithoutServerPackages('--help');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('cairn run get');
  });

  it('runs `cairn doctor` on a home without a database without a server package (SQLite loads only to read one)', async () => {
    // A fresh home, and no CLI to run: every provider CLI is pointed at a path that does not exist.
    const missing = Object.fromEntries(['CLAUDE', 'CODEX', 'OPENCODE', 'PI', 'COPILOT', 'GEMINI'].map((cli) => [`${cli}_BIN_PATH`, join(dir, 'none')]));
    const { code, stdout, stderr } = await cliWithEnv({ ...missing, CAIRN_HOME: join(dir, 'home') }, 'doctor', '--json');
    expect(stderr).not.toContain('the CLI loaded');
    expect(code, stdout).toBe(1); // the missing CLIs failed
    expect(JSON.parse(stdout).checks.find((c: { id: string }) => c.id === 'database').detail).toContain('no database yet');
  });

  it('runs the HTTP commands without a server package', async () => {
    const url = `http://127.0.0.1:${await freePort()}`; // nothing listens there
    for (const argv of [
      ['run', 'get', 'some-run'],
      ['run', 'list'],
      ['workflow', 'run', 'some-workflow'],
    ]) {
      const { code, stderr } = await cliWithoutServerPackages(...argv, '--url', url);
      expect(stderr, argv.join(' ')).toContain(`Cannot reach the Cairn server at ${url}`);
      expect(stderr).not.toContain('the CLI loaded');
      expect(code).toBe(1);
    }
  });
});
