import { setTimeout as sleep } from 'node:timers/promises';
import {
  authProvidersResponseSchema,
  connectKeyResponseSchema,
  disconnectResponseSchema,
  oauthPollResponseSchema,
  oauthStartResponseSchema,
} from '../../wire/auth-providers.js';
import type { ApiClient } from '../api-client.js';
import { expectPositionals, parseCommandArgs } from '../args.js';
import { CliError, EXIT_INTERRUPTED, usageError } from '../../terminal/cli-error.js';
import { writeLine, type CliContext } from '../../terminal/context.js';
import { formatTable } from '../../terminal/format.js';
import { readSecret } from '../secret-input.js';
import { printHelp, printJson, serverOptionsHelp, type Command } from './command.js';
import { clientFor, urlOption, userFor, userOption } from './server-flags.js';

const userHelp = `  --user <id>        the user the credentials are kept for (X-Service-User). Default: CAIRN_USER.
                     Runs use them when started as that user: set CAIRN_USER for
                     \`cairn workflow run\` too`;

const options = `${userHelp}
${serverOptionsHelp}`;

/** The user every `cairn auth` command acts for, or a usage error saying how to name one. */
function requireUser(ctx: CliContext, flag: string | undefined, command: string): string {
  const user = userFor(ctx, flag, command);
  if (user === undefined) {
    throw usageError(
      'Credentials are kept per user: pass --user <id> or set CAIRN_USER (and keep it set for `cairn workflow run`, so runs use them).',
      command,
    );
  }
  return user;
}

const providerPath = (provider: string) => `/api/auth/providers/${encodeURIComponent(provider)}`;

export const authListCommand: Command = {
  name: 'auth list',
  summary: "list a user's provider credentials (never a secret)",
  help: `Usage: cairn auth list [--user <id>] [--json] [--url <url>]

List the provider credentials connected for the user: vendor, kind (api_key, or oauth for a
subscription login) and label. No secret is ever shown: the server never sends one back. Also
lists the vendors a key can be connected for, and those with a subscription login.

Options:
  --json             print the server's JSON (connections, vendors and the agent matrix)
${options}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, { json: { type: 'boolean' }, ...userOption, ...urlOption });
    if (values.help) return printHelp(ctx, this.help);
    expectPositionals(this.name, positionals, []);
    const user = requireUser(ctx, values.user, this.name);
    const { raw, body } = await clientFor(ctx, values.url, user).request('GET', '/api/auth/providers', authProvidersResponseSchema);
    if (values.json) return printJson(ctx, raw);
    if (body.connections.length === 0) {
      writeLine(ctx.stdout, `No credentials for user ${user}. Connect a key with \`cairn auth add <vendor>\`.`);
    } else {
      const rows = body.connections.map((c) => [c.provider, c.kind, c.label]);
      for (const line of formatTable(['VENDOR', 'KIND', 'LABEL'], rows)) writeLine(ctx.stdout, line);
    }
    writeLine(ctx.stdout);
    writeLine(ctx.stdout, `API keys: ${body.available.join(', ')}`);
    writeLine(ctx.stdout, `Subscription logins (cairn auth login): ${body.subscriptionAvailable.join(', ')}`);
    return 0;
  },
};

export const authAddCommand: Command = {
  name: 'auth add',
  summary: 'connect an API key for a vendor, read from a hidden prompt or stdin',
  help: `Usage: cairn auth add <vendor> [--stdin] [--label <text>] [--user <id>] [--json] [--url <url>]

Connect an API key for <vendor> (anthropic, openai, github-copilot, google, ...; \`cairn auth list\`
shows them all; claude, codex and copilot name anthropic, openai and github-copilot). The key is
never taken from the command line, where it would land in the shell's history: it is asked for on
the terminal without echo, or read from stdin with --stdin (everything up to the end, less one
trailing newline). It replaces the user's previous key for the vendor, is stored sealed, and is
never printed or sent back.

Options:
  --stdin            read the key from stdin instead of asking for it
  --label <text>     a name to tell the key apart (default: "<vendor> API key")
  --json             print the server's JSON answer (no secret in it)
${options}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, {
      stdin: { type: 'boolean' },
      label: { type: 'string' },
      json: { type: 'boolean' },
      ...userOption,
      ...urlOption,
    });
    if (values.help) return printHelp(ctx, this.help);
    const [provider] = expectPositionals(this.name, positionals, ['vendor']) as [string];
    const user = requireUser(ctx, values.user, this.name);
    const apiKey = await readSecret(
      { stdin: ctx.stdin, stderr: ctx.stderr, fromStdin: values.stdin === true, prompt: `API key for ${provider} (not shown): `, what: 'the key' },
      (message) => usageError(message, this.name),
    );
    if (apiKey.trim() === '') throw usageError('The key is empty: nothing was sent.', this.name);
    const body = { apiKey, ...(values.label !== undefined ? { label: values.label } : {}) };
    const { raw, body: answer } = await clientFor(ctx, values.url, user).request('PUT', providerPath(provider), connectKeyResponseSchema, { body });
    if (values.json) return printJson(ctx, raw);
    writeLine(ctx.stdout, `Connected ${answer.provider} for user ${user}: ${answer.kind} '${answer.label}'.`);
    return 0;
  },
};

export const authRemoveCommand: Command = {
  name: 'auth remove',
  summary: "disconnect a user's credential for a vendor",
  help: `Usage: cairn auth remove <vendor> [--user <id>] [--json] [--url <url>]

Disconnect the user's credential (API key or subscription login) for <vendor>. Succeeds also when
nothing was connected. Runs then fall back to the install's key, the environment's, or the agent
CLI's own login.

Options:
  --json             print the server's JSON answer
${options}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, { json: { type: 'boolean' }, ...userOption, ...urlOption });
    if (values.help) return printHelp(ctx, this.help);
    const [provider] = expectPositionals(this.name, positionals, ['vendor']) as [string];
    const user = requireUser(ctx, values.user, this.name);
    const { raw } = await clientFor(ctx, values.url, user).request('DELETE', providerPath(provider), disconnectResponseSchema);
    if (values.json) return printJson(ctx, raw);
    writeLine(ctx.stdout, `Disconnected ${provider} for user ${user} (if it was connected).`);
    return 0;
  },
};

type PollAnswer = { status: 'pending' | 'connected' | 'error'; detail?: string | undefined };

/** Polls until the login is connected or refused, every `intervalS` seconds, until `deadline`; stops on Ctrl-C. */
async function pollUntilDone(
  ctx: CliContext,
  send: (code?: string) => Promise<PollAnswer>,
  opts: { intervalS: number; deadline: number; first?: PollAnswer },
): Promise<PollAnswer> {
  const stop = new AbortController();
  const release = ctx.onInterrupt(() => stop.abort());
  try {
    let answer = opts.first ?? { status: 'pending' as const };
    while (answer.status === 'pending') {
      if (Date.now() >= opts.deadline) return { status: 'error', detail: 'the login expired before it was completed; start it again' };
      try {
        await sleep(opts.intervalS * 1000, undefined, { signal: stop.signal });
      } catch {
        throw new CliError('LOGIN_FAILED', 'Interrupted: the login was not completed.', EXIT_INTERRUPTED);
      }
      answer = await send();
    }
    return answer;
  } finally {
    release();
  }
}

export const authLoginCommand: Command = {
  name: 'auth login',
  summary: 'connect a subscription login (OAuth) for a vendor',
  help: `Usage: cairn auth login <vendor> [--stdin] [--user <id>] [--url <url>]

Connect a subscription login for <vendor> (anthropic, openai: a code to paste; github-copilot: a
device code). The server starts the login; this command prints what to open and waits:
- paste mode (anthropic, openai): open the printed URL, sign in and authorize, then paste the code
  the vendor shows (or the whole address the browser landed on) at the prompt, which does not
  echo it; with --stdin it is read from stdin instead. It is exchanged once.
- device mode (github-copilot): open the printed address, enter the printed code; the command
  polls the server every few seconds until the login is connected, refused or expired.
Ctrl-C stops waiting (exit 130). Exit 1 when the login ends without a connection.

Options:
  --stdin            paste mode: read the code from stdin instead of asking for it
${options}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, { stdin: { type: 'boolean' }, ...userOption, ...urlOption });
    if (values.help) return printHelp(ctx, this.help);
    const [provider] = expectPositionals(this.name, positionals, ['vendor']) as [string];
    const user = requireUser(ctx, values.user, this.name);
    const client: ApiClient = clientFor(ctx, values.url, user);
    const { body: start } = await client.request('POST', `${providerPath(provider)}/oauth/start`, oauthStartResponseSchema);
    const deadline = Date.now() + start.expiresIn * 1000;
    const send = async (code?: string): Promise<PollAnswer> =>
      (
        await client.request('POST', `${providerPath(provider)}/oauth/poll`, oauthPollResponseSchema, {
          body: { sessionId: start.sessionId, ...(code !== undefined ? { code } : {}) },
        })
      ).body;
    let answer: PollAnswer;
    if (start.mode === 'manual') {
      writeLine(ctx.stdout, `Open this address in a browser, sign in and authorize:\n  ${start.url ?? '(the server gave no address)'}`);
      writeLine(ctx.stdout, 'Then paste the code the vendor shows (or the address the browser landed on).');
      const code = await readSecret(
        { stdin: ctx.stdin, stderr: ctx.stderr, fromStdin: values.stdin === true, prompt: 'Code (not shown): ', what: 'the code' },
        (message) => usageError(message, this.name),
      );
      if (code.trim() === '') throw usageError('The code is empty: nothing was sent; start the login again.', this.name);
      answer = await pollUntilDone(ctx, send, { intervalS: start.interval ?? 2, deadline, first: await send(code.trim()) });
    } else {
      writeLine(ctx.stdout, `Open ${start.verificationUriComplete ?? start.verificationUri ?? '(the server gave no address)'} and enter the code ${start.userCode ?? '(none given)'}.`);
      writeLine(ctx.stdout, `Waiting for the login (it expires in ${Math.round(start.expiresIn / 60)} min; Ctrl-C stops waiting)...`);
      answer = await pollUntilDone(ctx, send, { intervalS: start.interval ?? 5, deadline });
    }
    if (answer.status !== 'connected') {
      throw new CliError('LOGIN_FAILED', `The ${provider} login was not connected: ${answer.detail ?? 'the server gave no reason'}. Start it again with \`cairn auth login ${provider}\`.`);
    }
    writeLine(ctx.stdout, `Connected the ${provider} subscription login for user ${user}.`);
    return 0;
  },
};
