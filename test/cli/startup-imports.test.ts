import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { assertBuilt, runCli } from './cli-process.js';

/**
 * The CLI shares its HTTP schemas with the API (`src/wire/`), but it is a client: loading any
 * command must never load the server's packages. A module hook in the real `cairn` process makes
 * loading one of them fail loudly, so a stray import anywhere in a command's graph fails here.
 * The build bundles packages into dist/ (scripts/build.mjs), so the hook looks twice: at each
 * package Node resolves (those the bundle leaves out), and inside each bundled file the process
 * loads, where esbuild marks every module it inlined with a `// …node_modules/<package>/…` line.
 */

const serverPackages = ['fastify', '@fastify/swagger', 'fastify-type-provider-zod', 'better-sqlite3', 'piscina'];

let dir: string;
let forbid: string;
beforeAll(async () => {
  assertBuilt();
  dir = await mkdtemp(join(tmpdir(), 'cairn-cli-imports-'));
  const hooks = `import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
const forbidden = ${JSON.stringify(serverPackages)};
export async function resolve(specifier, context, next) {
  if (forbidden.includes(specifier)) throw new Error('the CLI loaded ' + specifier + ' (from ' + context.parentURL + ')');
  return next(specifier, context);
}
export async function load(url, context, next) {
  if (url.startsWith('file:') && url.includes('/dist/')) {
    const text = readFileSync(fileURLToPath(url), 'utf8');
    for (const name of forbidden) {
      // esbuild's line before each inlined module: its path from the build's folder.
      const marker = new RegExp('\\n// (?:[^\\n]*/)?node_modules/' + name.replace('/', '\\/') + '/');
      if (marker.test(text)) throw new Error('the CLI loaded ' + name + ' (bundled in ' + url + ')');
    }
  }
  return next(url, context);
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
  it('the hook works: a process that does load fastify fails, as a package and bundled', async () => {
    const { spawnSync } = await import('node:child_process');
    const load = (code: string) =>
      spawnSync(process.execPath, ['--import', pathToFileURL(forbid).href, '--input-type=module', '-e', code], { encoding: 'utf8', cwd: dir });
    const asPackage = load("await import('fastify')");
    expect(asPackage.status).not.toBe(0);
    expect(asPackage.stderr).toContain('the CLI loaded fastify');
    // The API's bundle inlines fastify; the hook refuses it before any of it runs.
    const apiMain = pathToFileURL(fileURLToPath(new URL('../../dist/api/main.js', import.meta.url))).href;
    const bundled = load(`await import(${JSON.stringify(apiMain)})`);
    expect(bundled.status).not.toBe(0);
    expect(bundled.stderr).toMatch(/the CLI loaded fastify\S* \(bundled in /);
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
