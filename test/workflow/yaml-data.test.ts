import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { parseYamlData } from '../../src/workflow/loading/yaml-data.js';

/**
 * `parseYamlData` reads with js-yaml where it can and with `yaml` otherwise; a user must never
 * see a difference. Every workflow Cairn ships or was given, and generated documents, parse
 * to the same data (or fail with the same message) as with `yaml` alone.
 */

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const yamlFilesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.ya?ml$/i.test(e.name))
    .map((e) => join(e.parentPath, e.name));

/** `yaml`'s answer: its data, or its error message. */
function reference(text: string): { data: unknown } | { error: string } {
  try {
    return { data: parse(text, { prettyErrors: true, logLevel: 'error' }) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

function ours(text: string): { data: unknown } | { error: string } {
  try {
    return { data: parseYamlData(text) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

describe('parseYamlData reads like the yaml library', () => {
  const files = [
    ...yamlFilesUnder(join(repoRoot, 'workflows')),
    ...yamlFilesUnder(join(repoRoot, 'test/fixtures')),
  ];

  it('on every corpus, bundled and fixture workflow', () => {
    expect(files.length).toBeGreaterThan(40);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      expect(ours(text), file).toEqual(reference(text));
    }
  });

  it.each([
    ['numbers YAML 1.1 read differently', 'a: 1_000\nb: 0b101\nc: 012\nd: 0o17\ne: 0x1F\nf: 1e3\ng: .inf\nh: -.NaN\n'],
    ['YAML 1.1 booleans and dates stay strings', 'a: yes\nb: on\nc: 2001-12-14\nd: 1:20\n'],
    ['merge keys are plain keys', 'base: &b {x: 1}\nuse:\n  <<: *b\n  y: 2\n'],
    ['__proto__ is an own key', '__proto__: {polluted: true}\n'],
    ['duplicate keys', 'a: 1\na: 2\n'],
    ['complex keys', '? [a, b]\n: c\n'],
    ['several documents', 'a: 1\n---\nb: 2\n'],
    ['an empty file', ''],
    ['only a comment', '# nothing\n'],
    ['tabs as indentation', 'a:\n\tb: 1\n'],
    ['unknown tags', 'a: !custom x\nb: !!binary aGk=\n'],
    ['a syntax error', 'nodes:\n  - id: a\n   bash: x\n'],
    ['deep nesting', `${'['.repeat(150)}${']'.repeat(150)}`],
    ['a YAML 1.1 directive', '%YAML 1.1\n---\na: yes\n'],
  ])('on %s', (_label, text) => {
    expect(ours(text)).toEqual(reference(text));
  });

  it('reads the dialect docs/workflows.md describes', () => {
    expect(parseYamlData('a: yes\nb: on\nc: 2001-12-14\nd: 1_000\ne: 012\n<<: {x: 1}\n')).toEqual({
      a: 'yes', b: 'on', c: '2001-12-14', d: '1_000', e: 12, '<<': { x: 1 },
    });
    expect(parseYamlData('base: &b {x: 1}\nuse: *b\n')).toEqual({ base: { x: 1 }, use: { x: 1 } });
    expect(() => parseYamlData('a: 1\na: 2\n')).toThrow(/unique/);
  });

  it('refuses an alias bomb the way yaml does', () => {
    const levels = Array.from({ length: 9 }, (_, i) => `l${i + 1}: &l${i + 1} [${Array(9).fill(`*l${i}`).join(', ')}]`);
    const bomb = `l0: &l0 [lol]\n${levels.join('\n')}\n`;
    const answer = ours(bomb);
    expect(answer).toEqual(reference(bomb));
    expect('error' in answer && answer.error).toMatch(/alias/i);
  });

  it('on generated documents, in block and flow style, with any strings', () => {
    const scalar = fc.oneof(fc.string({ unit: 'binary' }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, scalar, tie('list'), tie('map')),
      list: fc.array(tie('node'), { maxLength: 4 }),
      map: fc.dictionary(fc.string(), tie('node'), { maxKeys: 4 }),
    })).node;
    fc.assert(
      fc.property(value, fc.boolean(), (data, flow) => {
        const text = stringify({ root: data }, flow ? { collectionStyle: 'flow' } : {});
        expect(ours(text)).toEqual(reference(text));
      }),
      { numRuns: 500 },
    );
  });

  it('on anchors and tags where a node starts (js-yaml reads `&!{}` as data, yaml refuses it)', () => {
    for (const text of ['name: &!{}\n', 'name: &a x\nbash: *a\n', 'nodes:\n  - &n {id: a}\n', 'x: [!!str 1, &b 2]\n', 'name: !custom x\n']) {
      expect(ours(text), text).toEqual(reference(text));
    }
  });

  it('on null keys, which js-yaml names "null" and yaml ""', () => {
    for (const text of ['x:\n  null: 1\n', 'x:\n  ~: 1\n', 'name: {: a}\n', 'name: [{:}]\n', 'name: [ ? : ]\n', 'x: {"null": 1}\n']) {
      expect(ours(text), text).toEqual(reference(text));
    }
  });

  it('on plain scalars of any characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii', maxLength: 30 }), (s) => {
        const text = `name: ${s}\nbash: ${s}\n`;
        expect(ours(text)).toEqual(reference(text));
      }),
      { numRuns: 2000 },
    );
  });
});
