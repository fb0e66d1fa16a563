import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const configFile = join(repo, '.dependency-cruiser.cjs');
const depcruise = join(repo, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Violation {
  rule: { name: string; severity: string };
  from: string;
  to: string;
}

/** Runs the project's layer rules (the same config `npm run depcheck` uses) on a small tree. */
async function cruise(files: Record<string, string>): Promise<Violation[]> {
  const root = await mkdtemp(join(tmpdir(), 'cairn-layers-'));
  try {
    await writeFile(
      join(root, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['src'] }),
    );
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), text);
    }
    const { stdout } = await promisify(execFile)(process.execPath, [depcruise, 'src', '--config', configFile, '--output-type', 'json'], {
      cwd: root,
    });
    return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

describe('the layer rules (npm run depcheck)', () => {
  let found: Violation[];

  beforeAll(async () => {
    found = await cruise({
      // A back-up import: the bottom layer naming a process.
      'src/shared/ids.ts': "import { route } from '../api/route.js';\nexport const id = route;\n",
      'src/api/route.ts': "export const route = 'r';\n",
      // The API reaching into the worker.
      'src/api/providers.ts': "import { adapters } from '../worker/adapters.js';\nexport const names = adapters;\n",
      'src/worker/adapters.ts': "export const adapters = ['a'];\n",
      // A cycle closed by a type-only import.
      'src/workflow/a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
      'src/workflow/b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
      // An import that points down is fine.
      'src/records/record.ts': "import { id } from '../shared/ids.js';\nexport const record = id;\n",
    });
  }, 60_000);

  it('reports, as an error naming the rule, an import that points back up', () => {
    expect(found).toContainEqual(
      expect.objectContaining({ rule: { name: 'layer-shared', severity: 'error' }, from: 'src/shared/ids.ts', to: 'src/api/route.ts' }),
    );
  });

  it('keeps the API out of the worker', () => {
    expect(found).toContainEqual(
      expect.objectContaining({ rule: { name: 'layer-api', severity: 'error' }, from: 'src/api/providers.ts' }),
    );
  });

  it('counts a cycle closed by `import type`', () => {
    expect(found.some((v) => v.rule.name === 'no-circular' && v.from.startsWith('src/workflow/'))).toBe(true);
  });

  it('leaves imports that point down alone', () => {
    expect(found.filter((v) => v.from === 'src/records/record.ts')).toEqual([]);
  });

  it('places every top folder of src/ in a layer', async () => {
    const require = createRequire(import.meta.url);
    const config = require(configFile) as { forbidden: { name: string }[] };
    const ruled = new Set(config.forbidden.map((rule) => rule.name));
    const entries = await readdir(join(repo, 'src'), { withFileTypes: true });
    const folders = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    expect(folders.filter((folder) => !ruled.has(`layer-${folder}`))).toEqual([]);
  });
});

