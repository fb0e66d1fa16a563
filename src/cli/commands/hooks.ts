import { hookSchema, hookSignatureSchema } from '../../store/schemas/hook.js';
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

export const hooksAddCommand: Command = {
  name: 'hooks add',
  summary: 'add a webhook: a signed POST to /api/hooks/<name> starts a run of a workflow',
  help: `Usage: cairn hooks add <name> --workflow <name> --signature <form> [--input key=path ...] [--codebase <id>] [--stdin] [--json] [--url <url>]

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
${jsonOption}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, {
      workflow: { type: 'string' }, signature: { type: 'string' }, input: { type: 'string', multiple: true }, codebase: { type: 'string' },
      stdin: { type: 'boolean' }, json: { type: 'boolean' }, ...urlOption,
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
      },
    });
    if (values.json) return printJson(ctx, raw);
    writeLine(ctx.stdout, `Webhook ${body.name}: ${body.workflow_name}, ${body.signature} signature, inputs ${mappingText(body.inputs)}.`);
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
