import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import { loadWorkflowText } from '../src/workflow/loading/load-workflow.js';
import { defaultLocations } from '../src/workflow/catalog/locations.js';
import { openSession, percentile } from './session.js';

/**
 * `GET /api/workflows` over 100 workflow files, once the catalog's caches are warm: the
 * issue's target is p50 ≤ 10 ms (upstream needs 128 ms for 26 files). Asked over HTTP of the
 * real API process, so the figure is the network round trip, routing, discovery (one readdir
 * and one stat per file), response serialization and JSON.
 *
 * The 100 files are copies, renamed, of real workflows: the bundled set, the documented
 * examples, and the upstream corpus (`test/fixtures/corpus`),
 * so their size and shape are those users write.
 */

const repoRoot = fileURLToPath(new URL('../', import.meta.url));
const corpusRoot = join(repoRoot, 'test', 'fixtures', 'corpus');

/** Folders holding real workflow files, in the order their files are used. */
function templateDirs(home: string): string[] {
  const dirs = [defaultLocations(home).bundledWorkflowsDir, join(repoRoot, 'test', 'fixtures', 'workflows', 'examples', 'workflows')];
  for (const set of ['upstream-defaults', 'upstream-e2e']) dirs.push(join(corpusRoot, set, 'workflows'));
  return dirs.filter((dir) => existsSync(dir));
}

/**
 * The YAML of each template that loads on its own once renamed (an `include:` of a workflow
 * that is not copied would not), so every one of the 100 files lists.
 */
function loadTemplates(home: string): string[] {
  const texts: string[] = [];
  for (const dir of templateDirs(home)) {
    for (const file of readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort()) {
      const text = readFileSync(join(dir, file), 'utf8');
      if (loadWorkflowText(renamed(text, 'bench-probe')).ok) texts.push(text);
    }
  }
  if (texts.length === 0) throw new Error('no workflow templates found');
  return texts;
}

function renamed(text: string, name: string): string {
  const doc = parseDocument(text);
  doc.set('name', name);
  return String(doc);
}

/** p50 and p99 of 200 cached listings of 100 home-scoped workflow files, in ms, over HTTP
 * from the real API process (as a browser or the CLI would ask). */
export async function workflowList(files = 100, requests = 200): Promise<{ p50: number; p99: number; files: number }> {
  const session = await openSession();
  const home = session.home;
  try {
    const templates = loadTemplates(home.home);
    await mkdir(home.paths.workflows, { recursive: true });
    for (let i = 0; i < files; i++) {
      const name = `bench-${String(i).padStart(3, '0')}`;
      await writeFile(join(home.paths.workflows, `${name}.yaml`), renamed(templates[i % templates.length]!, name));
    }
    const url = `${session.server.url}/api/workflows`;
    const warm = await fetch(url);
    const body = (await warm.json()) as { workflows: { source: string }[] };
    const fromHome = body.workflows.filter((w) => w.source === 'global').length;
    if (warm.status !== 200 || fromHome !== files) {
      throw new Error(`warm-up listed ${fromHome} of ${files} files (status ${warm.status})`);
    }
    const samples: number[] = [];
    for (let i = 0; i < requests; i++) {
      const t0 = performance.now();
      const res = await fetch(url);
      await res.arrayBuffer();
      samples.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`GET /api/workflows answered ${res.status}`);
    }
    return { p50: percentile(samples, 50), p99: percentile(samples, 99), files };
  } finally {
    await session.close();
  }
}
