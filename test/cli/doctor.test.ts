import { readFileSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../src/shared/process-group.js';
import { freePort } from '../helpers/free-port.js';
import { waitFor } from '../helpers/wait-for.js';
import { assertBuilt } from './cli-process.js';
import { doctorLines, lineOf, makeDoctorBench, packagedClis, type DoctorBench } from './doctor-bench.js';

/**
 * `cairn doctor` through the built CLI, as a user runs it: a real home, fake provider CLIs on a
 * PATH of the test's own, real sockets for the servers it probes.
 */

const KEY = 'sk-ant-doctor-test-secret-value';
let bench: DoctorBench;
beforeAll(assertBuilt);
beforeEach(async () => {
  bench = await makeDoctorBench();
});
afterEach(async () => {
  await bench.home.close();
});

describe('cairn doctor on a fresh home', () => {
  it('prints one line per check, warns about what the first `cairn serve` makes, and exits 0', async () => {
    await bench.fake('claude', '2.1.100 (Claude Code)');
    const res = await bench.doctor([], { ...(await bench.packagedFakes()), ANTHROPIC_API_KEY: KEY });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const { home, paths } = bench.home;
    expect(doctorLines(res.stdout).map((l) => `${l.status} ${l.name}`)).toEqual([
      'warn server',
      'warn database',
      'warn install key',
      'ok disk space',
      'ok config',
      'ok claude executable',
      'ok claude credential',
      ...packagedClis.flatMap((cli) => [`ok ${cli} executable`, `warn ${cli} credential`]),
      'ok anthropic credential',
      'warn openai-compatible credential',
    ]);
    expect(lineOf(res.stdout, 'server').text).toBe(`no server is running for this home (no live launcher in ${paths.serverFile}). Next: start one with \`cairn serve\``);
    expect(lineOf(res.stdout, 'database').text).toBe(`no database yet at ${paths.database}. Next: \`cairn serve\` creates it on its first start`);
    expect(lineOf(res.stdout, 'install key').text).toContain(`no key yet at ${paths.installKey}. Next: \`cairn serve\` makes one`);
    expect(lineOf(res.stdout, 'disk space').text).toMatch(new RegExp(`^\\d+(\\.\\d)? GiB free for ${home}$`));
    expect(lineOf(res.stdout, 'config').text).toBe(`no ${paths.config}: defaults apply; default assistant claude (from the built-in default)`);
    expect(lineOf(res.stdout, 'claude executable').text).toBe(`${join(bench.bin, 'claude')} (on PATH), 2.1.100 (Claude Code)`);
    expect(lineOf(res.stdout, 'codex executable').text).toBe(`${join(bench.bin, 'codex')} (from CODEX_BIN_PATH), codex 9.9.9-fake`);
    // Where the key came from, never the key.
    expect(lineOf(res.stdout, 'claude credential').text).toBe('found in ANTHROPIC_API_KEY');
    expect(res.stdout).not.toContain(KEY);
    const codexKey = lineOf(res.stdout, 'codex credential').text;
    expect(codexKey).toContain('none found (looked at assistants.codex.apiKey, CODEX_API_KEY, OPENAI_API_KEY, stored openai credentials');
    expect(codexKey).toContain('Next: set CODEX_API_KEY for cairn serve');
    expect(res.stdout.trimEnd().split('\n').at(-1)).toBe('10 ok, 9 warn, 0 FAILED');
  });

  it('--json prints one object with every check: id, name, status, detail, next', async () => {
    await bench.fake('claude', '2.1.100 (Claude Code)');
    const res = await bench.doctor(['--json'], await bench.packagedFakes());
    expect(res.code).toBe(0);
    const report = JSON.parse(res.stdout);
    expect(report).toMatchObject({ home: bench.home.home, ok: true });
    expect(report.checks[0]).toEqual({
      id: 'server',
      name: 'server',
      status: 'warn',
      detail: `no server is running for this home (no live launcher in ${bench.home.paths.serverFile})`,
      next: 'start one with `cairn serve`',
    });
    expect(report.checks.find((c: { id: string }) => c.id === 'provider.claude.executable')).toMatchObject({ status: 'ok', next: null });
    for (const check of report.checks) expect(Object.keys(check)).toEqual(['id', 'name', 'status', 'detail', 'next']);
  });

  it('refuses arguments it does not take, with a usage error', async () => {
    const extra = await bench.doctor(['now']);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain("Unexpected argument 'now'");
    const url = await bench.doctor(['--url', 'not a url']);
    expect(url.code).toBe(2);
    expect(url.stderr).toContain("--url 'not a url' is not a URL");
  });
});

describe('cairn doctor on a broken home', () => {
  it('fails when the default assistant is not installed, and says how to install it', async () => {
    const res = await bench.doctor([], await bench.packagedFakes());
    expect(res.code).toBe(1);
    const claude = lineOf(res.stdout, 'claude executable');
    expect(claude.status).toBe('FAILED');
    expect(claude.text).toBe(
      "not installed: 'claude' is not on PATH and @anthropic-ai/claude-code is not installed next to Cairn (claude is the default assistant). " +
        'Next: install it (npm install -g @anthropic-ai/claude-code) or set CLAUDE_BIN_PATH to its path, or choose another default assistant (defaultAssistant in config.yaml or CAIRN_DEFAULT_ASSISTANT)',
    );
    // Its key and server matter once it is installed.
    expect(doctorLines(res.stdout).map((l) => l.name)).not.toContain('claude credential');
    expect(res.stdout.trimEnd().split('\n').at(-1)).toMatch(/, 1 FAILED$/);
  });

  it('only warns about a missing CLI that is not the default assistant', async () => {
    await writeFile(bench.home.paths.config, 'defaultAssistant: codex\n');
    const res = await bench.doctor([], await bench.packagedFakes());
    expect(res.code).toBe(0);
    expect(lineOf(res.stdout, 'claude executable')).toMatchObject({ status: 'warn', text: expect.stringMatching(/^not installed: 'claude' is not on PATH/) });
    expect(lineOf(res.stdout, 'config').text).toContain('default assistant codex (from defaultAssistant in config.yaml)');
  });

  it('fails on a configured executable that is missing or does not run', async () => {
    const broken = await bench.fake('codex-broken', '', '#!/bin/sh\necho "codex: cannot load its native part" >&2\nexit 3\n');
    const res = await bench.doctor([], {
      ...(await bench.packagedFakes()),
      CODEX_BIN_PATH: broken,
      GEMINI_BIN_PATH: join(bench.bin, 'no-such-gemini'),
    });
    expect(res.code).toBe(1);
    expect(lineOf(res.stdout, 'codex executable')).toEqual({
      status: 'FAILED',
      name: 'codex executable',
      text: `${broken} (from CODEX_BIN_PATH) does not run: \`--version\` exited with code 3: codex: cannot load its native part. Next: run \`${broken} --version\` yourself to see why, then reinstall @openai/codex or fix CODEX_BIN_PATH`,
    });
    expect(lineOf(res.stdout, 'gemini executable')).toMatchObject({
      status: 'FAILED',
      text: `'${join(bench.bin, 'no-such-gemini')}' (from GEMINI_BIN_PATH) does not exist or is not executable. Next: point GEMINI_BIN_PATH at the gemini executable, or remove it to look for gemini on PATH`,
    });
  });

  it('kills a CLI that does not answer `--version`, with everything it started', async () => {
    const pidFile = join(bench.userHome, 'child.pid');
    const hung = await bench.fake('pi-hung', '', `#!/bin/sh\n/bin/sleep 600 &\necho $! > '${pidFile}'\nwait\n`);
    const res = await bench.doctor([], { ...(await bench.packagedFakes()), PI_BIN_PATH: hung, CAIRN_DEFAULT_ASSISTANT: 'pi' });
    expect(res.code, res.stdout).toBe(1);
    expect(lineOf(res.stdout, 'pi executable')).toMatchObject({
      status: 'FAILED',
      text: expect.stringContaining(`${hung} (from PI_BIN_PATH) does not run: \`--version\` gave no answer within 10 s (pi is the default assistant)`),
    });
    const child = Number(readFileSync(pidFile, 'utf8'));
    await waitFor(() => !isProcessAlive(child), { what: `the CLI's child ${child} to be gone` });
  });

  it('fails on a default assistant that is not a provider', async () => {
    await writeFile(bench.home.paths.config, 'defaultAssistant: claud\n');
    const res = await bench.doctor([], await bench.packagedFakes());
    expect(res.code).toBe(1);
    expect(lineOf(res.stdout, 'config')).toMatchObject({
      status: 'FAILED',
      text: `the default assistant (from defaultAssistant in config.yaml) is not a provider: Unknown provider 'claud'. Registered: claude, codex, opencode, pi, copilot, gemini, anthropic, openai-compatible. Next: set defaultAssistant in ${bench.home.paths.config} to one of them`,
    });
  });

  it('fails on an install key file others can read, and on a malformed one', async () => {
    await bench.fake('claude', '2.1.100 (Claude Code)');
    const fakes = await bench.packagedFakes();
    const file = bench.home.paths.installKey;
    await writeFile(file, `${'ab'.repeat(32)}\n`);
    await chmod(file, 0o644);
    const open = await bench.doctor([], fakes);
    expect(open.code).toBe(1);
    expect(lineOf(open.stdout, 'install key')).toMatchObject({
      status: 'FAILED',
      text: `${file} has mode 0644: other users can read the key that opens every sealed secret. Next: chmod 600 ${file}`,
    });
    expect(open.stdout).not.toContain('ab'.repeat(32));

    await writeFile(file, 'not a key\n');
    await chmod(file, 0o600);
    const malformed = await bench.doctor([], fakes);
    expect(malformed.code).toBe(1);
    const line = lineOf(malformed.stdout, 'install key');
    expect(line.status).toBe('FAILED');
    expect(line.text).toContain(`The install key file ${file} is malformed: it must hold 64 hexadecimal characters`);
    expect(line.text).toContain(`Next: restore ${file} from a backup (or set TOKEN_ENCRYPTION_KEY)`);

    await writeFile(file, `${'ab'.repeat(32)}\n`);
    const sound = await bench.doctor([], fakes);
    expect(lineOf(sound.stdout, 'install key')).toMatchObject({ status: 'ok', text: expect.stringMatching(new RegExp(`^${file} \\(mode 0600, id [0-9a-f]{12}\\)$`)) });
  });

  it("fails on a provider's server that does not answer, naming the address it tried", async () => {
    await bench.fake('claude', '2.1.100 (Claude Code)');
    const closed = await freePort();
    const answering: Server = createServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((resolve) => answering.listen(0, '127.0.0.1', resolve));
    bench.home.defer(() => new Promise((resolve) => answering.close(resolve)));
    const open = (answering.address() as { port: number }).port;
    await writeFile(bench.home.paths.config, `assistants:\n  anthropic:\n    baseUrl: http://127.0.0.1:${closed}\n`);
    const res = await bench.doctor([], { ...(await bench.packagedFakes()), ANTHROPIC_API_KEY: KEY, OPENAI_BASE_URL: `http://127.0.0.1:${open}/v1` });
    expect(res.code).toBe(1);
    expect(lineOf(res.stdout, 'anthropic server')).toEqual({
      status: 'FAILED',
      name: 'anthropic server',
      text:
        `http://127.0.0.1:${closed} (from assistants.anthropic.baseUrl in config.yaml): no answer from 127.0.0.1:${closed}: connection refused: nothing listens there. ` +
        `Next: start the server at 127.0.0.1:${closed}, or fix assistants.anthropic.baseUrl in config.yaml to point at one that runs`,
    });
    for (const provider of ['codex', 'opencode', 'pi', 'copilot', 'openai-compatible']) {
      expect(lineOf(res.stdout, `${provider} server`)).toMatchObject({
        status: 'ok',
        text: `http://127.0.0.1:${open}/v1 (from OPENAI_BASE_URL) answers at 127.0.0.1:${open} (HTTP 404)`,
      });
    }
    // A local server may need no key.
    expect(lineOf(res.stdout, 'openai-compatible credential')).toMatchObject({ status: 'ok', text: `no key: fine for a server that needs none (http://127.0.0.1:${open}/v1)` });
  });

  it('fails on a database that cannot be opened, and says what to do with it', async () => {
    await bench.fake('claude', '2.1.100 (Claude Code)');
    const { database } = bench.home.paths;
    await mkdir(join(database, '..'), { recursive: true });
    await writeFile(database, 'these bytes are not a SQLite database, whatever the name says\n'.repeat(200));
    const res = await bench.doctor([], await bench.packagedFakes());
    expect(res.code).toBe(1);
    expect(lineOf(res.stdout, 'database')).toEqual({
      status: 'FAILED',
      name: 'database',
      text:
        `${database} cannot be opened: file is not a database (SQLITE_NOTADB). ` +
        `Next: restore ${database} from a backup, or move it (with its -wal and -shm files) aside so that \`cairn serve\` makes a new one (what it held is then gone from Cairn)`,
    });
    // The database exists, so a missing key is a lost one.
    expect(lineOf(res.stdout, 'install key').text).toContain(`${bench.home.paths.installKey} is missing but the database exists`);
  });

  it('fails on a server that does not answer: a CAIRN_URL, or a live launcher whose server hangs', async () => {
    await bench.fake('claude', '2.1.100 (Claude Code)');
    const fakes = await bench.packagedFakes();
    const port = await freePort();
    const byEnv = await bench.doctor([], { ...fakes, CAIRN_URL: `http://127.0.0.1:${port}` });
    expect(byEnv.code).toBe(1);
    expect(lineOf(byEnv.stdout, 'server')).toMatchObject({
      status: 'FAILED',
      text: `http://127.0.0.1:${port} (from CAIRN_URL): no answer from 127.0.0.1:${port}: connection refused: nothing listens there. Next: start \`cairn serve\`, or fix CAIRN_URL to point at a running server`,
    });
    // The database line then looks at the file itself.
    expect(lineOf(byEnv.stdout, 'database').text).toContain('no database yet');

    // A launcher that is alive (this test's own process stands in for it) but whose server is gone.
    const { serverFile, runDir } = bench.home.paths;
    await mkdir(runDir, { recursive: true });
    await writeFile(serverFile, JSON.stringify({ url: `http://127.0.0.1:${port}`, pid: process.pid, startedAt: new Date().toISOString() }));
    const byFile = await bench.doctor([], fakes);
    expect(byFile.code).toBe(1);
    expect(lineOf(byFile.stdout, 'server').text).toContain(
      `Next: the launcher (pid ${process.pid}) wrote http://127.0.0.1:${port} into ${serverFile}: stop it (kill ${process.pid}) and start \`cairn serve\` again`,
    );
  });

  it('fails on a config.yaml the server would refuse, and checks the providers with the environment alone', async () => {
    await bench.fake('claude', '2.1.100 (Claude Code)');
    await writeFile(bench.home.paths.config, 'concurrency:\n  max: lots\n');
    const res = await bench.doctor([], await bench.packagedFakes());
    expect(res.code).toBe(1);
    expect(lineOf(res.stdout, 'config')).toMatchObject({ status: 'FAILED', text: expect.stringContaining(`cairn serve would refuse to start: ${bench.home.paths.config}: concurrency.max`) });
    expect(lineOf(res.stdout, 'claude executable').status).toBe('ok');
  });
});
