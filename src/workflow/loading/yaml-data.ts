import { CORE_SCHEMA, load } from 'js-yaml';
import { parse } from 'yaml';

/**
 * YAML text → plain data, the way the `yaml` library reads it (YAML 1.2, core schema), at a
 * seventh of the time and a third of the transient memory for the plain documents workflows
 * are: js-yaml builds objects straight from parser events, where `yaml` first builds a
 * concrete syntax tree and a document model. A 10,000-node workflow parses in ~55 ms of CPU
 * instead of ~320 ms (~150 instead of ~650 in a fresh process); `npx tsx bench/yaml-parsers.ts`
 * measures both on the corpus, and BENCHMARKS.md says why both stay.
 *
 * js-yaml takes a document only when it can read it exactly as `yaml` would: core schema,
 * no aliases at all (`maxAliases: 0`, so `yaml`'s own alias limits keep guarding against
 * billion-laughs documents), no directives (`%YAML 1.1` switches `yaml` to the 1.1 schema),
 * one document, plain keys, no anchors or tags where a node starts. Everything else it refuses (duplicate
 * keys, complex keys, several documents, an empty file, unknown tags, deep nesting, any syntax
 * error), and then `yaml` parses the text, so the result and the error texts are `yaml`'s.
 * A test checks that both give the same data for every workflow in the corpus and the fixtures.
 */
export function parseYamlData(text: string): unknown {
  if (/^%/m.test(text) || ANCHOR_OR_TAG.test(text)) return parseWithYaml(text);
  let data: unknown;
  try {
    data = load(text, { schema: CORE_SCHEMA, maxAliases: 0 });
  } catch {
    return parseWithYaml(text);
  }
  // A null key (`null:`, `~:`, `{: x}`) is "null" to js-yaml and "" to `yaml`: such a document
  // (or one with a quoted "null" key, which cannot be told apart here) is read the slower way.
  return hasKeyNamedNull(data) ? parseWithYaml(text) : data;
}

/** Whether some mapping in `data` has the key "null". Walks level by level (no recursion). */
function hasKeyNamedNull(data: unknown): boolean {
  let level: unknown[] = [data];
  while (level.length > 0) {
    const next: unknown[] = [];
    for (const item of level) {
      if (typeof item !== 'object' || item === null) continue;
      if (!Array.isArray(item) && Object.hasOwn(item, 'null')) return true;
      for (const child of Object.values(item)) if (typeof child === 'object' && child !== null) next.push(child);
    }
    level = next;
  }
  return false;
}

/**
 * An anchor (`&a`), a tag (`!t`) or an alias (`*a`) where a node starts: at a line's start, after
 * `- `, after `key: `, or inside a flow collection. The two libraries disagree on some of their
 * spellings (`&!{}` is data to js-yaml and an error to `yaml`), so such a document goes to `yaml`.
 * It also matches a few plain texts (a line of a block scalar that starts with `!`); those are
 * only read the slower way.
 */
const ANCHOR_OR_TAG = /(?:^[ \t]*(?:-[ \t]+)*|[:,[{][ \t]*)[&!*]/m;

/**
 * What a config file's YAML error says, without the excerpt of the file that follows it: its
 * first line names the problem with its line and column, and the excerpt could show a secret
 * kept beside the broken line (an API key in `assistants.<id>`).
 */
export function yamlErrorHeadline(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!.replace(/:$/, '');
}

/** Errors with the line and a caret; warnings (unknown tags) are not printed to the server's stderr. */
function parseWithYaml(text: string): unknown {
  return parse(text, { prettyErrors: true, logLevel: 'error' });
}
