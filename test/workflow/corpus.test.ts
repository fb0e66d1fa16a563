import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPlainObject } from '../../src/workflow/loading/unknown-keys.js';
import type { DiscoveryResult } from '../../src/workflow/catalog/discover-workflows.js';
import { makeTempProject, type TempProject } from './temp-project.js';

/**
 * The real corpus: workflow and command files written for the upstream system by others. Every
 * one must load from a project's `.archon/` folder with zero errors, validate, and lose no key
 * silently: each key of the raw YAML is either in the loaded workflow or named by a warning.
 */

const corpusRoot = fileURLToPath(new URL('../fixtures/corpus/', import.meta.url));
const corpusSets = ['upstream-defaults', 'upstream-e2e'];

let t: TempProject;
let listing: DiscoveryResult;
const rawFiles = new Map<string, Record<string, unknown>>();

beforeAll(() => {
  if (!existsSync(corpusRoot)) throw new Error(`the corpus is missing at ${corpusRoot} (expected test/fixtures/corpus)`);
  t = makeTempProject();
  for (const set of corpusSets) {
    for (const kind of ['workflows', 'commands', 'scripts']) {
      const from = join(corpusRoot, set, kind);
      if (!existsSync(from)) continue;
      for (const file of readdirSync(from)) {
        const to = join(t.cwd, '.archon', kind, file);
        expect(existsSync(to), `two corpus sets both hold ${kind}/${file}`).toBe(false);
        cpSync(join(from, file), to);
        if (kind === 'workflows') rawFiles.set(file, parse(readFileSync(to, 'utf8')) as Record<string, unknown>);
      }
    }
  }
  listing = t.catalog.list({ cwd: t.cwd });
});
afterAll(() => t?.close());

/** Dotted key paths of a raw YAML mapping; free-form blocks are kept whole. */
function keyPaths(value: Record<string, unknown>, prefix = ''): string[] {
  const freeForm = new Set(['output_format', 'sandbox', 'hooks', 'thinking', 'with', 'nodes', 'agents']);
  return Object.entries(value).flatMap(([key, inner]) => {
    const path = `${prefix}${key}`;
    return isPlainObject(inner) && !freeForm.has(key) ? [path, ...keyPaths(inner, `${path}.`)] : [path];
  });
}

function hasPath(value: unknown, path: string): boolean {
  let current = value;
  for (const part of path.split('.')) {
    if (!isPlainObject(current) || !(part in current)) return false;
    current = current[part];
  }
  return true;
}

describe('the upstream corpus', () => {
  it('is all discovered from .archon/ with zero errors', () => {
    expect(listing.errors).toEqual([]);
    expect(listing.workflows.map((w) => w.filename).sort()).toEqual([...rawFiles.keys()].sort());
    expect(listing.workflows.every((w) => w.source === 'project')).toBe(true);
    expect(rawFiles.size).toBeGreaterThanOrEqual(40);
  });

  it('has every command its workflows name', () => {
    const commands = new Set(t.catalog.commands({ cwd: t.cwd }).map((c) => c.name));
    const used = listing.workflows.flatMap((w) => w.workflow.nodes.flatMap((n) => ('command' in n ? [n.command] : [])));
    expect(used.filter((c) => !commands.has(c))).toEqual([]);
  });

  it('validates every workflow file as written, with includes, commands and child workflows resolved', () => {
    const invalid = [...rawFiles].flatMap(([file, raw]) => {
      const result = t.catalog.validate(raw, { cwd: t.cwd });
      return result.valid ? [] : [`${file}: ${result.errors.join('; ')}`];
    });
    expect(invalid).toEqual([]);
  });

  it('keeps every key of every file, or names it in a parse warning', () => {
    const lost: string[] = [];
    for (const entry of listing.workflows) {
      const raw = rawFiles.get(entry.filename)!;
      const warnings = entry.parseWarnings ?? [];
      const warned = (label: string, path: string) => warnings.some((w) => w.startsWith(label) && w.includes(`'${path}'`));
      const { nodes: rawNodes, ...rawRoot } = raw;
      for (const path of keyPaths(rawRoot)) {
        if (!hasPath(entry.workflow, path) && !warned('Workflow', path)) lost.push(`${entry.filename}: ${path}`);
      }
      for (const rawNode of rawNodes as Record<string, unknown>[]) {
        const id = String(rawNode.id);
        if ('include' in rawNode) {
          if (!entry.workflow.nodes.some((n) => n.id.startsWith(`${id}__`))) lost.push(`${entry.filename}: include ${id} inlined nothing`);
          continue;
        }
        const node = entry.workflow.nodes.find((n) => n.id === id);
        if (!node) {
          lost.push(`${entry.filename}: node ${id}`);
          continue;
        }
        for (const path of keyPaths(rawNode)) {
          if (!hasPath(node, path) && !warned(`Node '${id}'`, path)) lost.push(`${entry.filename}: node ${id}: ${path}`);
        }
      }
    }
    expect(lost).toEqual([]);
  });

  it('inlines the shared review block where the defaults include it', () => {
    const ideaToPr = listing.workflows.find((w) => w.workflow.name === 'archon-idea-to-pr')!.workflow;
    const summary = ideaToPr.nodes.find((n) => n.id === 'workflow-summary')!;
    expect(summary.depends_on).toEqual(['review__implement-fixes']);
    expect(ideaToPr.nodes.filter((n) => n.id.startsWith('review__'))).toHaveLength(10);
  });
});
