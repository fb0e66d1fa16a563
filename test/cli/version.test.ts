import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from './cli-process.js';

/** `cairn --version` and `-V` print the package's version, from the real `cairn` executable. */

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const cli = (...argv: string[]) => runCli(argv, { env: { ...process.env, NO_COLOR: '1' }, cwd: process.cwd() });

beforeAll(assertBuilt);

describe('cairn --version', () => {
  it.each(['--version', '-V'])('%s prints the package version and exits 0', async (flag) => {
    const { code, stdout, stderr } = await cli(flag);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toBe(`cairn ${version}\n`);
  });

  it('is named in the help', async () => {
    expect((await cli('--help')).stdout).toContain('`cairn --version` (or -V)');
  });
});
