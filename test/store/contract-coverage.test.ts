import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The store contract covers the whole Store: every method of the interfaces in src/store/*.ts is
 * called by some contract test (test/store/contract/), and every contract suite runs against
 * the SQLite backend. A new store method without a contract test fails here, so a second
 * backend can trust the suite to say what it must do.
 */

const root = join(import.meta.dirname, '..', '..');
const storeDir = join(root, 'src', 'store');
const contractDir = join(import.meta.dirname, 'contract');

/** The method names of every exported `...Store` interface in src/store/*.ts (Store itself included). */
function storeMethods(): Map<string, string> {
  const methods = new Map<string, string>();
  for (const file of readdirSync(storeDir).filter((f) => f.endsWith('.ts'))) {
    const source = ts.createSourceFile(file, readFileSync(join(storeDir, file), 'utf8'), ts.ScriptTarget.Latest, true);
    source.forEachChild((node) => {
      if (!ts.isInterfaceDeclaration(node) || !/Store$/.test(node.name.text)) return;
      for (const member of node.members) {
        const isMethod = ts.isMethodSignature(member) || (ts.isPropertySignature(member) && member.type !== undefined && ts.isFunctionTypeNode(member.type));
        if (isMethod && member.name && ts.isIdentifier(member.name)) methods.set(member.name.text, `${file} ${node.name.text}`);
      }
    });
  }
  return methods;
}

const contractSources = () =>
  readdirSync(contractDir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => readFileSync(join(contractDir, f), 'utf8'))
    .join('\n');

describe('the store contract', () => {
  it('calls every store method in some contract test', () => {
    const methods = storeMethods();
    // Guards the reading itself: the Store has about 70 methods over nine aggregates.
    expect(methods.size).toBeGreaterThan(60);
    expect(methods.get('acquireRun')).toBe('runs.ts RunStore');
    const sources = contractSources();
    const untested = [...methods].filter(([name]) => !new RegExp(`\\.${name}\\(`).test(sources)).map(([name, where]) => `${name} (${where})`);
    expect(untested, 'store methods no test in test/store/contract/ calls: write a contract test for each').toEqual([]);
  });

  it('runs every contract suite against the SQLite backend', () => {
    const suites = [...contractSources().matchAll(/export function (describe\w+Contract)\(/g)].map((m) => m[1]!);
    expect(suites.length).toBeGreaterThan(10);
    const sqlite = readFileSync(join(import.meta.dirname, 'sqlite.test.ts'), 'utf8');
    expect(suites.filter((suite) => !sqlite.includes(`${suite}(sqliteBackend)`))).toEqual([]);
  });
});
