import { YAMLParseError } from 'yaml';
import { parseDraft, type ParsedDraft } from './parse-draft.js';
import { isPlainObject } from './unknown-keys.js';
import { parseYamlData } from './yaml-data.js';
import { completeDraft, type ValidationOptions } from '../checks/validate-definition.js';
import type { WorkflowDefinition } from '../schema/workflow-schema.js';

/**
 * Loading a workflow from YAML text: parse → schema → checks. The result is either a loaded
 * workflow with its parse warnings, or one error string (every problem joined by "; ") with
 * the upstream's `errorType`.
 */

export type LoadErrorType = 'read_error' | 'parse_error' | 'validation_error';

export type LoadedWorkflow =
  | { ok: true; workflow: WorkflowDefinition; parseWarnings: string[] }
  | { ok: false; error: string; errors: string[]; errorType: LoadErrorType; parseWarnings: string[] };

/** `error` is every problem joined by "; "; `errors` lists them one by one. */
export type ParsedText = { ok: true; parsed: ParsedDraft } | { ok: false; error: string; errors: string[]; errorType: LoadErrorType };

/** YAML text → the first loading stage (no other files needed; safe to cache per file). */
export function parseWorkflowText(text: string): ParsedText {
  let raw: unknown;
  try {
    raw = parseYamlData(text);
  } catch (err) {
    const message = err instanceof YAMLParseError ? err.message : String(err);
    const error = `YAML parse error: ${message}`;
    return { ok: false, error, errors: [error], errorType: 'parse_error' };
  }
  if (!isPlainObject(raw)) {
    const error = 'YAML file is empty or does not contain an object';
    return { ok: false, error, errors: [error], errorType: 'validation_error' };
  }
  return { ok: true, parsed: parseDraft(raw) };
}

/** Finishes loading a parsed file. */
export function finishLoading(parsed: ParsedDraft, options: ValidationOptions = {}): LoadedWorkflow {
  const result = completeDraft(parsed, options);
  if (result.valid) return { ok: true, workflow: result.workflow, parseWarnings: result.warnings };
  return { ok: false, error: result.errors.join('; '), errors: result.errors, errorType: 'validation_error', parseWarnings: result.warnings };
}

/** Loads one workflow from YAML text. */
export function loadWorkflowText(text: string, options: ValidationOptions = {}): LoadedWorkflow {
  const parsed = parseWorkflowText(text);
  if (!parsed.ok) return { ...parsed, parseWarnings: [] };
  return finishLoading(parsed.parsed, options);
}
