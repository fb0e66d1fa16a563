/**
 * YAML in the page, loaded only when a workflow page needs it (its own file, outside the
 * initial script): the text of a loaded workflow, and the editor's text read into the object
 * the API's routes take. Core schema, as the server reads workflow files.
 */

type JsYaml = typeof import('js-yaml');

let loading: Promise<JsYaml> | undefined;

export function loadYaml(): Promise<JsYaml> {
  loading ??= import('js-yaml');
  return loading;
}

export async function toYaml(value: unknown): Promise<string> {
  const yaml = await loadYaml();
  return yaml.dump(value, { schema: yaml.CORE_SCHEMA, lineWidth: 120, noRefs: true });
}

export type Parsed = { ok: true; value: unknown } | { ok: false; message: string; line: number | undefined };

/** The text as data, or what is wrong with it and on which line (1-based). */
export async function parseYaml(text: string): Promise<Parsed> {
  const yaml = await loadYaml();
  try {
    return { ok: true, value: yaml.load(text, { schema: yaml.CORE_SCHEMA, maxAliases: 0 }) };
  } catch (err) {
    const error = err as { reason?: string; message?: string; mark?: { line: number } };
    return { ok: false, message: error.reason ?? error.message ?? String(err), line: error.mark ? error.mark.line + 1 : undefined };
  }
}
