import { z } from 'zod';
import { DEFAULT_DOCS_DIR } from '../../shared/docs-path.js';
import { variableNames } from '../../shared/run-variable-names.js';

/**
 * The run-context variables a node body may reference as `$NAME` (or `${NAME}`), and how each
 * reaches a node. Node output references and `$INPUTS.<name>` are in `references.ts`.
 */

export const variableNameSchema = z.enum(variableNames);
export type VariableName = z.infer<typeof variableNameSchema>;

/** The values known for a run; absent means "not available here". */
export const variableValuesSchema = z.partialRecord(variableNameSchema, z.string());
export type VariableValues = z.infer<typeof variableValuesSchema>;

/**
 * Why a variable has no value for a run, and how to give it one (the run knows better than the
 * defaults below: a project config value it could not use, say). A variable named here has no
 * value even where it would otherwise default.
 */
export type UnavailableVariables = Readonly<Partial<Record<VariableName, string>>>;

/**
 * Values a user (or a model) controls. In shell and script bodies they are passed as
 * environment variables and never spliced into the code, so no value can inject commands.
 */
export const userControlledVariables: ReadonlySet<VariableName> = new Set([
  'ARGUMENTS',
  'USER_MESSAGE',
  'CONTEXT',
  'EXTERNAL_CONTEXT',
  'ISSUE_CONTEXT',
  'LOOP_USER_INPUT',
  'LOOP_PREV_OUTPUT',
  'REJECTION_REASON',
]);

/**
 * Variables with no sensible empty value: a body that references one the run cannot resolve
 * fails the node (upstream fails the run on an unresolvable `$BASE_BRANCH`) instead of splicing ''.
 */
export const variablesRequiredWhenReferenced: ReadonlySet<VariableName> = new Set([
  'WORKFLOW_ID',
  'ARTIFACTS_DIR',
  'STATE_DIR',
  'BASE_BRANCH',
]);

/** How to give a required variable a value, when the run says nothing more precise. */
const howToGiveAValue: Partial<Record<VariableName, string>> = {
  BASE_BRANCH:
    'pass --base <branch> (baseBranch in the run request), set worktree.baseBranch in .cairn/config.yaml, ' +
    'or give the repository an origin/HEAD or a main branch',
  STATE_DIR:
    'it is kept per registered codebase ($CAIRN_HOME/workspaces/<owner>/<repo>/state); register the project ' +
    '(cairn codebase add <dir>) and run the workflow on it (--codebase <id>, or --cwd <its checkout>)',
};

/** The text a node fails with when it references `name` and the run has no value for it. */
export function unavailableVariableText(name: VariableName, why?: string): string {
  const how = why ?? howToGiveAValue[name] ?? 'Cairn sets it for every run; report this as a bug';
  return `$${name} has no value for this run: ${how}`;
}

/** The value of a variable, with the aliases and defaults applied; undefined when unavailable. */
export function variableValue(values: VariableValues, name: VariableName, unavailable?: UnavailableVariables): string | undefined {
  if (unavailable?.[name] !== undefined) return undefined;
  switch (name) {
    case 'ARGUMENTS':
      return values.ARGUMENTS ?? values.USER_MESSAGE ?? '';
    case 'USER_MESSAGE':
      return values.USER_MESSAGE ?? values.ARGUMENTS ?? '';
    case 'CONTEXT':
    case 'EXTERNAL_CONTEXT':
    case 'ISSUE_CONTEXT':
      return values[name] ?? values.CONTEXT ?? values.EXTERNAL_CONTEXT ?? values.ISSUE_CONTEXT ?? '';
    case 'DOCS_DIR':
      return values.DOCS_DIR ?? DEFAULT_DOCS_DIR;
    default:
      return values[name] ?? (variablesRequiredWhenReferenced.has(name) ? undefined : '');
  }
}

/** The environment variable an input reaches shell and script bodies as: `INPUTS_<UPPER_SNAKE>`. */
export function inputEnvName(inputName: string): string {
  return `INPUTS_${inputName.replace(/-/g, '_').toUpperCase()}`;
}
