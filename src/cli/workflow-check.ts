import { readFileSync } from 'node:fs';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import type { WorkflowCatalog } from '../workflow/catalog/catalog.js';
import { listWorkflowFiles, readWorkflowFile } from '../workflow/catalog/discover-workflows.js';
import type { WorkflowSource } from '../shared/workflow-source.js';
import { lineOfMessage, nodeLines } from './yaml-locations.js';

/** One problem in a workflow file, with the line it is about when that is known. */
export interface LocatedMessage {
  message: string;
  line?: number;
  column?: number;
}

export interface WorkflowCheck {
  file: string;
  valid: boolean;
  errors: LocatedMessage[];
  warnings: LocatedMessage[];
  /** Keys of the project's config file Cairn does not read (each message names the file). */
  configWarnings: string[];
}

/**
 * The file that defines workflow `name` as seen from `cwd` (project, then home, then bundled);
 * failing that, a file named `<name>.yaml` whose `name:` cannot be read (it does not parse), so
 * its problems are shown rather than "not found".
 */
export function findWorkflowFile(
  catalog: WorkflowCatalog,
  name: string,
  cwd: string,
): { path: string; source: WorkflowSource; label: string } | undefined {
  const files = listWorkflowFiles(catalog.locations, cwd).files;
  const found =
    files.find((file) => readWorkflowFile(file.path).name === name) ??
    files.find((file) => stemOf(file.relative) === name && readWorkflowFile(file.path).name === undefined);
  return found && { path: found.path, source: found.scope.source, label: `${found.scope.label}/${found.relative}` };
}

/** `team/review.yaml` → `review`. */
function stemOf(relative: string): string {
  return (relative.split('/').pop() ?? relative).replace(/\.ya?ml$/i, '');
}

/**
 * Checks one workflow file as it would load from the project at `cwd` (includes, commands and
 * child workflows resolve there) and returns every error and warning, each with its line when
 * the YAML parser or the node it names gives one.
 */
export function checkWorkflowFile(catalog: WorkflowCatalog, path: string, cwd: string): WorkflowCheck {
  const configWarnings = catalog.list({ cwd }).configWarnings;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return { file: path, valid: false, errors: [{ message: `Cannot read the file: ${(err as Error).message}` }], warnings: [], configWarnings };
  }
  let raw: unknown;
  try {
    raw = parseYaml(text, { prettyErrors: true });
  } catch (err) {
    if (!(err instanceof YAMLParseError)) throw err;
    const pos = err.linePos?.[0];
    const message = `YAML parse error: ${err.message.split('\n')[0]}`;
    return { file: path, valid: false, errors: [{ message, ...(pos ? { line: pos.line, column: pos.col } : {}) }], warnings: [], configWarnings };
  }
  const result = catalog.validate(raw, { cwd });
  const lines = nodeLines(text);
  const locate = (message: string): LocatedMessage => {
    const line = lineOfMessage(message, lines);
    return line !== undefined ? { message, line } : { message };
  };
  return {
    file: path,
    valid: result.valid,
    errors: result.valid ? [] : result.errors.map(locate),
    warnings: result.warnings.map(locate),
    configWarnings,
  };
}
