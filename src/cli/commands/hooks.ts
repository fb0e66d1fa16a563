import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { hookSchema, hookSignatureSchema, type Hook } from '../../store/schemas/hook.js';
import { mappingProblem } from '../../hooks/payload-inputs.js';
import { hookDeleteResponseSchema, hookListResponseSchema, hookNameSchema, MIN_SECRET_LENGTH } from '../../wire/hooks.js';
import { usageError } from '../../terminal/cli-error.js';
import { writeLine } from '../../terminal/context.js';
import { formatTable } from '../../terminal/format.js';
import { expectPositionals, parseCommandArgs, parseInputs } from '../args.js';
import { readSecret } from '../secret-input.js';
import { printHelp, printJson, serverOptionsHelp, type Command } from './command.js';
import { clientFor, urlOption } from './server-flags.js';

const jsonOption = `  --json             print the server's JSON response
${serverOptionsHelp}`;

const mappingText = (inputs: Record<string, string>) =>
  Object.entries(inputs).map(([input, path]) => `${input}=${path}`).join(' ') || '-';

export const hooksListCommand: Command = {
  name: 'hooks list',
  summary: 'list the webhooks (never their secrets)',
  help: `Usage: cairn hooks list [--json] [--url <url>]

List the webhooks: name, workflow, signature form (github or generic), the input mapping and the
address deliveries are sent to. Secrets are never shown.

Options:
${jsonOption}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, { json: { type: 'boolean' }, ...urlOption });
    if (values.help) return printHelp(ctx, this.help);
    expectPositionals(this.name, positionals, []);
    const { raw, body } = await clientFor(ctx, values.url).request('GET', '/api/hooks', hookListResponseSchema);
    if (values.json) return printJson(ctx, raw);
    if (body.hooks.length === 0) {
      writeLine(ctx.stdout, 'No webhooks yet. Add one with `cairn hooks add <name> --workflow <name> --signature github|generic --stdin`.');
      return 0;
    }
    const rows = body.hooks.map((h) => [h.name, h.workflow_name, h.signature, mappingText(h.inputs), `/api/hooks/${h.name}`]);
    for (const line of formatTable(['NAME', 'WORKFLOW', 'SIGNATURE', 'INPUTS', 'PATH'], rows)) writeLine(ctx.stdout, line);
    return 0;
  },
};

const githubText = (hook: Hook, g: NonNullable<Hook['github']>) =>
  [
    `/cairn run ${[hook.workflow_name, ...g.workflows].join(', ')}`,
    g.labels.length ? `labels ${g.labels.join(', ')}` : 'no labels',
    g.on_issue_opened ? 'new issues' : 'not new issues',
    g.deny_reply ? 'replies to non-writers' : 'no reply to non-writers',
    g.api_url,
    g.app ? `signs in as App ${g.app.app_id} (installation ${g.app.installation_id})` : 'signs in with a token',
  ].join('; ');

const appFlags = ['github-app-id', 'github-installation-id', 'github-private-key-file'] as const;

/** A positive whole number, or a usage error naming the flag. */
function idFlag(command: string, flag: string, value: unknown): number {
  const text = String(value);
  if (!/^[1-9][0-9]{0,15}$/.test(text)) throw usageError(`--${flag} '${text}' is not an id: a positive whole number, as GitHub shows it`, command);
  return Number(text);
}

/** How the hook signs in to GitHub: a token from the environment, or an App (its ids and its private key's file). */
function githubAccessOf(command: string, values: Record<string, unknown>, env: NodeJS.ProcessEnv, cwd: string): Record<string, unknown> | undefined {
  const tokenVar = values['github-token-env'] as string | undefined;
  const givenApp = appFlags.filter((k) => values[k] !== undefined);
  if (tokenVar !== undefined && givenApp.length) throw usageError(`--github-token-env and --${givenApp[0]}: a GitHub hook signs in with a token or as an App, not both`, command);
  if (tokenVar !== undefined) {
    const token = env[tokenVar];
    if (!token) throw usageError(`--github-token-env ${tokenVar}: the environment has no ${tokenVar} (or it is empty); set it to the GitHub token`, command);
    return { token };
  }
  if (!givenApp.length) return undefined;
  const missing = appFlags.find((k) => values[k] === undefined);
  if (missing) throw usageError(`--${givenApp[0]} signs the hook in as a GitHub App, which needs --${missing} too`, command);
  const keyFile = resolve(cwd, String(values['github-private-key-file']));
  let privateKey: string;
  try {
    privateKey = readFileSync(keyFile, 'utf8');
  } catch (err) {
    throw usageError(`--github-private-key-file ${keyFile}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); give the .pem file GitHub made for the App`, command);
  }
  return { app: { appId: idFlag(command, 'github-app-id', values['github-app-id']), installationId: idFlag(command, 'github-installation-id', values['github-installation-id']), privateKey } };
}

/** The `github` of the request from the --github-* flags; undefined without a token or an App (then no other may be given). */
function githubSettingsOf(command: string, values: Record<string, unknown>, env: NodeJS.ProcessEnv, cwd: string): Record<string, unknown> | undefined {
  const access = githubAccessOf(command, values, env, cwd);
  const others = ['github-api-url', 'github-workflow', 'github-label', 'github-on-issue-opened', 'github-no-reply', 'github-dashboard-url'].filter((k) => values[k] !== undefined);
  if (!access) {
    if (others.length) throw usageError(`--${others[0]} makes a GitHub hook, which needs --github-token-env <var> (the variable holding its token) or a GitHub App (--github-app-id ...)`, command);
    return undefined;
  }
  return {
    ...access,
    ...(values['github-api-url'] !== undefined ? { apiUrl: values['github-api-url'] } : {}),
    ...(values['github-workflow'] !== undefined ? { workflows: values['github-workflow'] } : {}),
    ...(values['github-label'] !== undefined ? { labels: values['github-label'] } : {}),
    ...(values['github-on-issue-opened'] ? { onIssueOpened: true } : {}),
    ...(values['github-no-reply'] ? { denyReply: false } : {}),
    ...(values['github-dashboard-url'] !== undefined ? { dashboardUrl: values['github-dashboard-url'] } : {}),
  };
}

export const hooksAddCommand: Command = {
  name: 'hooks add',
  summary: 'add a webhook: a signed POST to /api/hooks/<name> starts a run of a workflow',
  help: `Usage: cairn hooks add <name> --workflow <name> --signature <form> [--input key=path ...] [--codebase <id>] [--github-token-env <var> | --github-app-id <id> ...] [--stdin] [--json] [--url <url>]

Add a webhook. Each delivery signed with its secret (POST /api/hooks/<name>) starts one run of
the workflow, with inputs read from the JSON payload; a delivery sent again starts none
(docs/webhooks.md). The secret is asked for on the terminal without echo, or read from stdin
with --stdin; it is stored sealed and never shown again.

Options:
  --workflow <name>     the workflow to run (with --codebase, the codebase's project workflows first)
  --signature <form>    github (X-Hub-Signature-256, X-GitHub-Delivery) or generic
                        (X-Cairn-Timestamp, X-Cairn-Signature, X-Cairn-Delivery)
  --input key=path      a workflow input read from the payload: $ then .name and [n] steps,
                        e.g. --input sha='$.head_commit.id'; repeat for several
  --codebase <id>       run on this registered codebase (owner/repo), each run in its own worktree
  --stdin               read the secret (at least ${MIN_SECRET_LENGTH} characters) from stdin instead of asking

A GitHub hook (docs/github.md: \`/cairn run <workflow>\` comments, labels and new issues start runs):
  --github-token-env <var>     makes it one: its GitHub token is read from this environment
                               variable (e.g. GH_TOKEN), never from the command line
  --github-app-id <id>         or makes it one that signs in as a GitHub App: the App's id,
  --github-installation-id <id>  its installation's id on the repository's owner,
  --github-private-key-file <path>  and the App's private key (the .pem file GitHub made)
  --github-api-url <url>       the GitHub REST API (default https://api.github.com)
  --github-workflow <name>     another workflow \`/cairn run\` may start; repeat for several
  --github-label <label>       adding this label starts the workflow; repeat for several
  --github-on-issue-opened     a newly opened issue starts the workflow
  --github-no-reply            say nothing to a commenter without write access (default: one reply)
  --github-dashboard-url <url> the dashboard's address for the status comment's link
${jsonOption}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, {
      workflow: { type: 'string' }, signature: { type: 'string' }, input: { type: 'string', multiple: true }, codebase: { type: 'string' },
      stdin: { type: 'boolean' }, json: { type: 'boolean' }, ...urlOption,
      'github-token-env': { type: 'string' }, 'github-api-url': { type: 'string' }, 'github-workflow': { type: 'string', multiple: true },
      'github-label': { type: 'string', multiple: true }, 'github-on-issue-opened': { type: 'boolean' }, 'github-no-reply': { type: 'boolean' },
      'github-dashboard-url': { type: 'string' }, 'github-app-id': { type: 'string' }, 'github-installation-id': { type: 'string' },
      'github-private-key-file': { type: 'string' },
    });
    if (values.help) return printHelp(ctx, this.help);
    const [name] = expectPositionals(this.name, positionals, ['name']) as [string];
    const named = hookNameSchema.safeParse(name);
    if (!named.success) throw usageError(`webhook ${named.error.issues[0]!.message} (got '${name}')`, this.name);
    if (!values.workflow) throw usageError('--workflow <name> is required: the workflow a delivery starts', this.name);
    const signature = hookSignatureSchema.safeParse(values.signature);
    if (!signature.success) {
      throw usageError(
        values.signature === undefined
          ? '--signature <form> is required: github or generic'
          : `--signature '${values.signature}' is not a form: use ${hookSignatureSchema.options.join(' or ')}`,
        this.name,
      );
    }
    const github = githubSettingsOf(this.name, values, ctx.env, ctx.cwd);
    const inputs = parseInputs(this.name, values.input ?? []);
    const problem = mappingProblem(inputs);
    if (problem) throw usageError(problem.replace(/^input /, '--input '), this.name);
    const secret = await readSecret(
      { stdin: ctx.stdin, stderr: ctx.stderr, fromStdin: values.stdin === true, prompt: `Secret for webhook ${name} (not shown): `, what: 'the secret' },
      (message) => usageError(message, this.name),
    );
    if (secret.length < MIN_SECRET_LENGTH) {
      throw usageError(`the secret must be at least ${MIN_SECRET_LENGTH} characters (got ${secret.length}); make one with: openssl rand -hex 32`, this.name);
    }
    const { raw, body } = await clientFor(ctx, values.url).request('POST', '/api/hooks', hookSchema, {
      body: {
        name, workflow: values.workflow, signature: signature.data, secret,
        ...(Object.keys(inputs).length ? { inputs } : {}),
        ...(values.codebase !== undefined ? { codebaseId: values.codebase } : {}),
        ...(github ? { github } : {}),
      },
    });
    if (values.json) return printJson(ctx, raw);
    writeLine(ctx.stdout, `Webhook ${body.name}: ${body.workflow_name}, ${body.signature} signature, inputs ${mappingText(body.inputs)}.`);
    if (body.github) writeLine(ctx.stdout, `GitHub: ${githubText(body, body.github)}.`);
    writeLine(ctx.stdout, `Deliveries: POST /api/hooks/${body.name}`);
    return 0;
  },
};

export const hooksRemoveCommand: Command = {
  name: 'hooks remove',
  summary: 'remove a webhook (its runs stay)',
  help: `Usage: cairn hooks remove <name> [--json] [--url <url>]

Remove a webhook and its record of deliveries; the runs it started stay. Deliveries to it are
then answered 404.

Options:
${jsonOption}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, { json: { type: 'boolean' }, ...urlOption });
    if (values.help) return printHelp(ctx, this.help);
    const [name] = expectPositionals(this.name, positionals, ['name']) as [string];
    const { raw } = await clientFor(ctx, values.url).request('DELETE', `/api/hooks/${encodeURIComponent(name)}`, hookDeleteResponseSchema);
    if (values.json) return printJson(ctx, raw);
    writeLine(ctx.stdout, `Removed webhook ${name}.`);
    return 0;
  },
};

export const hooksGithubTokenCommand: Command = {
  name: 'hooks github-token',
  summary: "replace a GitHub hook's token (an installation token about to expire, a rotated one)",
  help: `Usage: cairn hooks github-token <name> --github-token-env <var> [--json] [--url <url>]

Replace a GitHub hook's token (docs/github.md): the new one is read from the environment variable
named (e.g. GH_TOKEN), never from the command line, stored sealed in place of the old, and never
shown. Deliveries from then on use it.

Options:
  --github-token-env <var>  the environment variable holding the new token
${jsonOption}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, { 'github-token-env': { type: 'string' }, json: { type: 'boolean' }, ...urlOption });
    if (values.help) return printHelp(ctx, this.help);
    const [name] = expectPositionals(this.name, positionals, ['name']) as [string];
    const settings = githubSettingsOf(this.name, values, ctx.env, ctx.cwd);
    if (!settings) throw usageError('--github-token-env <var> is required: the environment variable holding the new token', this.name);
    const { raw, body } = await clientFor(ctx, values.url).request('PUT', `/api/hooks/${encodeURIComponent(name)}/github-token`, hookSchema, {
      body: { token: settings.token },
    });
    if (values.json) return printJson(ctx, raw);
    writeLine(ctx.stdout, `Replaced the GitHub token of webhook ${body.name}.`);
    return 0;
  },
};
