import { chmod, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { startServer } from '../helpers/server.js';
import { assertBuilt } from './cli-process.js';
import { doctorLines, linkShellTools, makeDoctorBench, type DoctorBench, type DoctorLine } from './doctor-bench.js';
import { sh } from './shell-line.js';

/**
 * `cairn doctor` as docs/cli.md and the README show it: the synopsis agrees with `--help`, and
 * the example command, typed as written in the checkout, gives the lines the documentation
 * shows (status and check, in order; the texts that hold no path of the machine word for word).
 */

const checkout = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(fileURLToPath(new URL(`../../${file}`, import.meta.url)), 'utf8');
const section = read('docs/cli.md').split('\n## cairn doctor\n')[1]!.split('\n## ')[0]!;
const blocks = (text: string, lang: string) => [...text.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
const doctorCommands = (text: string) =>
  blocks(text, 'sh')
    .flatMap((b) => b.split('\n'))
    .filter((line) => /^(cairn|node bin\/cairn\.js) doctor\b/.test(line) && !line.includes('['))
    .map((line) => line.replace(/^cairn /, 'node bin/cairn.js '));
const [healthySample, brokenSample] = blocks(section, 'text').map(doctorLines) as [DoctorLine[], DoctorLine[]];

/** The documentation's paths and ports for the test's own. */
function asDocumented(text: string, bench: DoctorBench, port?: number): string {
  let out = text.replaceAll(bench.home.home, '/home/ada/.cairn').replaceAll(bench.userHome, '/home/ada');
  if (port !== undefined) out = out.replaceAll(String(port), '8000');
  return out;
}

let bench: DoctorBench;
beforeAll(assertBuilt);
beforeEach(async () => {
  bench = await makeDoctorBench();
  await linkShellTools(bench);
});
afterEach(async () => {
  await bench.home.close();
});

describe('docs/cli.md ## cairn doctor', () => {
  it('shows the usage line of `cairn doctor --help`, in the section and in the synopsis', async () => {
    const help = await sh('node bin/cairn.js doctor --help', checkout, bench.env());
    expect(help.code).toBe(0);
    const usage = help.stdout.split('\n')[0]!.replace(/^Usage: /, '');
    expect(blocks(section, '')[0]!.trim()).toBe(usage);
    expect(read('docs/cli.md').split('```')[1]!.split('\n')).toContain(usage);
  });

  it('the example on a running install prints the lines shown, and exits 0; so does the README one', async () => {
    const examples = [...doctorCommands(section), ...doctorCommands(read('README.md'))];
    expect(examples).toEqual(['node bin/cairn.js doctor', 'node bin/cairn.js doctor']);
    await startServer(bench.home);
    await bench.fake('claude', '2.1.100 (Claude Code)');
    const env = bench.env({ ...(await bench.packagedFakes()), ANTHROPIC_API_KEY: 'sk-ant-docs-example' });
    for (const line of examples) {
      const res = await sh(line, checkout, env);
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      const lines = doctorLines(res.stdout);
      expect(lines.map((l) => `${l.status} ${l.name}`)).toEqual(healthySample.map((l) => `${l.status} ${l.name}`));
      for (const sample of healthySample.filter((l) => l.name.endsWith('credential'))) {
        expect(asDocumented(lines.find((l) => l.name === sample.name)!.text, bench)).toBe(sample.text);
      }
      expect(res.stdout.trimEnd().split('\n').at(-1)).toBe(section.match(/^\d+ ok, \d+ warn, \d+ FAILED$/m)![0]);
    }
  });

  it('the broken install prints the failures shown, word for word, and exits 1', async () => {
    const port = await freePort();
    const file = bench.home.paths.installKey;
    await writeFile(file, `${'0f'.repeat(32)}\n`);
    await chmod(file, 0o644);
    const res = await sh('node bin/cairn.js doctor', checkout, bench.env({ ...(await bench.packagedFakes()), OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` }));
    expect(res.code).toBe(1);
    const lines = doctorLines(res.stdout);
    expect(brokenSample.length).toBe(3);
    for (const sample of brokenSample) {
      const line = lines.find((l) => l.name === sample.name);
      expect(line, sample.name).toBeDefined();
      expect({ ...line!, text: asDocumented(line!.text, bench, port) }).toEqual(sample);
    }
  });
});
