import { existsSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { stringify as toYaml } from 'yaml';
import { CairnError } from '../../shared/errors.js';
import { resolveHome } from '../../shared/paths.js';
import { WorkflowCatalog } from '../../workflow/catalog/catalog.js';
import { failedLoadDetails, failedLoadText } from '../../workflow/catalog/lookup-entry.js';
import { expectPositionals, parseCommandArgs } from '../args.js';
import { CliError } from '../../terminal/cli-error.js';
import { explainError } from '../error-hints.js';
import { isColorWanted, writeLine, type CliContext } from '../../terminal/context.js';
import { createStyle, firstLine, formatTable } from '../../terminal/format.js';
import { checkWorkflowFile, findWorkflowFile, type LocatedMessage } from '../workflow-check.js';
import { printHelp, printJson, type Command } from './command.js';

const cwdOption = { cwd: { type: 'string' }, json: { type: 'boolean' } } as const;

const commonHelp = `  --cwd <dir>        the project whose .cairn/workflows (and .archon/workflows) to include
                     (default: the current directory)
  --json             print JSON (the same shape the HTTP API answers with)
  -h, --help         show this help`;

function catalogFor(ctx: CliContext): WorkflowCatalog {
  return WorkflowCatalog.forHome(resolveHome(ctx.env));
}

/** The project `--cwd` names (default: the current directory); one that is not a directory is refused, as `workflow run` does. */
function projectDir(ctx: CliContext, given: string | undefined): string {
  const dir = resolve(ctx.cwd, given ?? '.');
  if (given !== undefined && !statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new CliError('CWD_INVALID', `Invalid --cwd: '${given}' is not an existing directory. Give the project's directory, or leave --cwd out to use the current one.`);
  }
  return dir;
}

/** A path as the user would type it: relative to where they are when that is shorter. */
function displayPath(ctx: CliContext, path: string): string {
  const rel = relative(ctx.cwd, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/** Turns the catalog's refusals into messages that say what to run next. */
function explain(err: unknown, name: string): never {
  const failed = failedLoadDetails(err);
  const coded = failed
    ? { code: 'WORKFLOW_INVALID', message: failedLoadText(name, failed), problems: failed.errors }
    : err instanceof CairnError && (err.code === 'WORKFLOW_NOT_FOUND' || err.code === 'WORKFLOW_INVALID')
      ? { code: err.code, message: err.message }
      : undefined;
  if (!coded) throw err;
  throw new CliError('WORKFLOW_INVALID', explainError(coded, { workflow: name }));
}

export const workflowListCommand: Command = {
  name: 'workflow list',
  summary: 'list the workflows you can run (project, home, bundled)',
  help: `Usage: cairn workflow list [--cwd <dir>] [--json]

List the workflows visible from a project: its .cairn/workflows (and .archon/workflows), then
$CAIRN_HOME/workflows, then the bundled ones. Files that failed to load are listed with why.

Options:
${commonHelp}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, cwdOption);
    if (values.help) return printHelp(ctx, this.help);
    expectPositionals(this.name, positionals, []);
    const cwd = projectDir(ctx, values.cwd);
    const result = catalogFor(ctx).list({ cwd });
    if (values.json) {
      // The API's shape: errors and configWarnings only when there are some.
      const { errors, configWarnings, ...rest } = result;
      return printJson(ctx, { ...rest, ...(errors.length > 0 ? { errors } : {}), ...(configWarnings.length > 0 ? { configWarnings } : {}) });
    }
    const style = createStyle(isColorWanted(ctx.stdout, ctx.env));
    if (result.workflows.length === 0) writeLine(ctx.stdout, 'No workflows found.');
    const recommended = new Set(result.recommended);
    const rows = result.workflows.map((entry) => [
      recommended.has(entry.workflow.name) ? `${entry.workflow.name} *` : entry.workflow.name,
      entry.source,
      entry.parseWarnings ? style.yellow(`${entry.parseWarnings.length} warning(s)`) : '',
      firstLine(entry.workflow.description, 70),
    ]);
    if (rows.length) for (const line of formatTable(['NAME', 'SOURCE', 'WARNINGS', 'DESCRIPTION'], rows, style)) writeLine(ctx.stdout, line);
    if (recommended.size > 0) writeLine(ctx.stdout, style.dim('* recommended for this project'));
    if (result.errors.length > 0) {
      writeLine(ctx.stdout);
      writeLine(ctx.stdout, style.red(`${result.errors.length} file(s) did not load:`));
      for (const e of result.errors) writeLine(ctx.stdout, `  ${e.filename} (${e.source}): ${e.error}`);
    }
    printConfigWarnings(ctx, result.configWarnings, style);
    return 0;
  },
};

export const workflowGetCommand: Command = {
  name: 'workflow get',
  summary: 'show one workflow and where it comes from',
  help: `Usage: cairn workflow get <name> [--cwd <dir>] [--json]

Show the workflow <name> as Cairn loads it (project, then home, then bundled), with the file it
comes from and any parse warnings.

Options:
${commonHelp}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, cwdOption);
    if (values.help) return printHelp(ctx, this.help);
    const [name] = expectPositionals(this.name, positionals, ['name']) as [string];
    const cwd = projectDir(ctx, values.cwd);
    const catalog = catalogFor(ctx);
    let entry;
    try {
      entry = catalog.get(name, { cwd });
    } catch (err) {
      explain(err, name);
    }
    if (values.json) return printJson(ctx, { workflow: entry.workflow, filename: entry.filename, source: entry.source });
    const style = createStyle(isColorWanted(ctx.stdout, ctx.env));
    const file = findWorkflowFile(catalog, name, cwd);
    writeLine(ctx.stdout, `${style.bold(entry.workflow.name)} (${entry.source}: ${file ? displayPath(ctx, file.path) : entry.filename})`);
    for (const warning of entry.parseWarnings ?? []) writeLine(ctx.stdout, style.yellow(`warning: ${warning}`));
    writeLine(ctx.stdout);
    // lineWidth 0: multi-line texts print as `|` blocks, as people write them, not refolded.
    ctx.stdout.write(toYaml(entry.workflow, { lineWidth: 0 }));
    return 0;
  },
};

/** The project config's keys Cairn does not read, after a listing or a check. */
function printConfigWarnings(ctx: CliContext, warnings: readonly string[], style: ReturnType<typeof createStyle>): void {
  if (warnings.length === 0) return;
  writeLine(ctx.stdout);
  for (const warning of warnings) writeLine(ctx.stdout, `${style.yellow('warning')}: ${warning}`);
}

function printMessages(ctx: CliContext, file: string, kind: 'error' | 'warning', messages: readonly LocatedMessage[], colour: (s: string) => string): void {
  for (const m of messages) {
    const where = m.line !== undefined ? `${file}:${m.line}${m.column !== undefined ? `:${m.column}` : ''}` : file;
    writeLine(ctx.stdout, `${where}: ${colour(kind)}: ${m.message}`);
  }
}

export const workflowValidateCommand: Command = {
  name: 'workflow validate',
  summary: 'check a workflow (by name or file) and list every problem',
  help: `Usage: cairn workflow validate <name-or-file> [--strict] [--cwd <dir>] [--json]

Check a workflow, given by name (looked up like \`cairn workflow get\`) or as a path to a YAML
file, and print every problem, each with its file and line: schema errors, duplicate ids,
unknown dependencies, cycles, bad references and conditions, unknown commands and providers.
Keys Cairn ignores are printed as warnings; a key that looks like a known one (depend_on) is
an error. Keys of the project's .cairn/config.yaml (or .archon/config.yaml) that Cairn does not
read are printed as warnings too. Exits 1 when the workflow is invalid.

Options:
  --strict           treat every warning as an error (exit 1 when there is any)
${commonHelp}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, { ...cwdOption, strict: { type: 'boolean' } });
    if (values.help) return printHelp(ctx, this.help);
    const [target] = expectPositionals(this.name, positionals, ['name-or-file']) as [string];
    const cwd = projectDir(ctx, values.cwd);
    const catalog = catalogFor(ctx);
    const asPath = resolve(ctx.cwd, target);
    const isPath = /\.ya?ml$/i.test(target) || target.includes('/') || (existsSync(asPath) && statSync(asPath).isFile());
    const path = isPath ? asPath : findWorkflowFile(catalog, target, cwd)?.path;
    if (path === undefined) {
      throw new CliError('WORKFLOW_INVALID', `Workflow not found: ${target}. Run \`cairn workflow list\` to see the workflows you can use, or give a file path.`);
    }
    if (!existsSync(path)) throw new CliError('WORKFLOW_INVALID', `No such file: ${displayPath(ctx, path)}`);
    const checked = checkWorkflowFile(catalog, path, cwd);
    const strict = values.strict === true;
    const warned = checked.warnings.length + checked.configWarnings.length;
    const check = strict
      ? {
          ...checked,
          valid: checked.valid && warned === 0,
          errors: [...checked.errors, ...checked.warnings, ...checked.configWarnings.map((message) => ({ message }))],
          warnings: [],
          configWarnings: [],
        }
      : checked;
    if (values.json) {
      printJson(ctx, {
        valid: check.valid,
        file: check.file,
        errors: check.errors.map((e) => e.message),
        warnings: check.warnings.map((w) => w.message),
        ...(check.configWarnings.length > 0 ? { configWarnings: check.configWarnings } : {}),
      });
      return check.valid ? 0 : 1;
    }
    const style = createStyle(isColorWanted(ctx.stdout, ctx.env));
    const shown = displayPath(ctx, path);
    printMessages(ctx, shown, 'error', check.errors, style.red);
    printMessages(ctx, shown, 'warning', check.warnings, style.yellow);
    // Each message names its config file (.cairn/config.yaml: ...), inside the project at cwd.
    const project = resolve(ctx.cwd) === cwd ? '' : `${displayPath(ctx, cwd)}/`;
    for (const warning of check.configWarnings) writeLine(ctx.stdout, `${project}${warning.replace(': ', `: ${style.yellow('warning')}: `)}`);
    const count = check.warnings.length + check.configWarnings.length;
    const warnings = count ? `, ${count} warning(s)` : '';
    if (check.valid) {
      writeLine(ctx.stdout, style.green(`${shown} is valid${warnings}.`));
      return 0;
    }
    const note = strict && warned > 0 ? ' (warnings count as errors with --strict)' : '';
    writeLine(ctx.stdout, style.red(`${shown} is invalid: ${check.errors.length} error(s)${warnings}${note}.`));
    return 1;
  },
};
