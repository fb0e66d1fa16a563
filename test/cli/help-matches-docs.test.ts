import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, userCliEnv } from './cli-process.js';

/** What `--help` says agrees with docs/cli.md: the exit statuses and the usage lines. */

const checkout = fileURLToPath(new URL('../../', import.meta.url));

let home: string;
beforeEach(async () => {
  assertBuilt();
  home = await mkdtemp(join(tmpdir(), 'cairn-cli-help-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const cli = (argv: string[]) => runCli(argv, { env: userCliEnv(home), cwd: home });

describe('exit status 3 is documented wherever exit statuses are listed', () => {
  it("docs/cli.md's Exit status table has a row for 3 (workflow run paused, stdin not a terminal)", () => {
    const doc = readFileSync(join(checkout, 'docs/cli.md'), 'utf8');
    const table = doc.split('## Exit status')[1]!.split('\n## ')[0]!;
    const codes = [...table.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    expect(codes).toEqual(expect.arrayContaining([0, 1, 2, 3, 130]));
  });

  it('`cairn --help` lists exit status 3 with the others', async () => {
    const res = await cli(['--help']);
    expect(res.code).toBe(0);
    const exit = res.stdout.slice(res.stdout.indexOf('Exit status'));
    expect(exit).toMatch(/\b3\b/);
  });

  it("`cairn workflow run --help`'s usage line shows --output, as docs/cli.md's synopsis does", async () => {
    const res = await cli(['workflow', 'run', '--help']);
    expect(res.stdout.split('\n')[0]).toContain('--output');
  });
});

describe("docs/cli.md's synopsis is each command's usage line", () => {
  const doc = readFileSync(join(checkout, 'docs/cli.md'), 'utf8');
  const synopsis = doc.match(/```\n(cairn serve[\s\S]*?)```/)![1]!.split('\n').filter((l) => l.startsWith('cairn ') && l !== 'cairn --version');

  it.each(synopsis)('%s', async (line) => {
    const [, group, sub] = line.split(' ');
    const words = sub && /^[a-z][a-z-]*$/.test(sub) ? [group!, sub] : [group!];
    const res = await cli([...words, '--help']);
    expect(res.code).toBe(0);
    expect(res.stdout.split('\n')[0]).toBe(`Usage: ${line}`);
    // The command's own section shows the same line (the synopsis is its first appearance).
    expect(doc.split(`\n${line}\n`).length - 1, 'the synopsis and the command\'s section').toBeGreaterThanOrEqual(2);
  });
});
