import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeTempProject, type TempProject } from './temp-project.js';

/**
 * docs/workflows.md, "How values enter each kind of body": the warnings it shows for its
 * `shell-warnings` example are the ones validation gives, word for word, and its `count-check`
 * example is warned about where the page says it fails (test/e2e/shell-safety-docs.test.ts runs it).
 */

const doc = readFileSync(fileURLToPath(new URL('../../docs/workflows.md', import.meta.url)), 'utf8');
const examples = fileURLToPath(new URL('../fixtures/workflows/examples/workflows/', import.meta.url));

/** The lines of the first fenced block after `marker`. */
function blockAfter(marker: string): string[] {
  const from = doc.indexOf(marker);
  expect(from, marker).toBeGreaterThan(-1);
  const open = doc.indexOf('```\n', from);
  return doc.slice(open + 4, doc.indexOf('\n```', open + 4)).split('\n');
}

let t: TempProject;
beforeEach(() => {
  t = makeTempProject();
  cpSync(examples, join(t.cwd, '.cairn', 'workflows'), { recursive: true });
});
afterEach(() => t.close());

it('the warnings the page shows for shell-warnings are the ones validation gives', () => {
  const entry = t.catalog.list({ cwd: t.cwd }).workflows.find((w) => w.workflow.name === 'shell-warnings');
  expect(entry?.parseWarnings).toEqual(blockAfter('the warnings are:'));
});

it('count-check is warned about for its compare node only, where a value that is not an integer fails it', () => {
  const entry = t.catalog.list({ cwd: t.cwd }).workflows.find((w) => w.workflow.name === 'count-check');
  const warnings = entry?.parseWarnings ?? [];
  expect(warnings.map((w) => /^Node '([^']+)': '([^']+)' on line (\d+) of the script is in ([^,]+), where bash evaluates it as arithmetic/.exec(w)?.slice(1))).toEqual([
    ['compare', '$ARGUMENTS', '1', '[[ … -gt … ]]'],
    ['compare', '$ARGUMENTS', '1', '$((…))'],
  ]);
});
