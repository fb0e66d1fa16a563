import { createInterface } from 'node:readline';
import { z } from 'zod';
import type { ApiClient } from '../api-client.js';
import { expectPositionals, parseCommandArgs } from '../args.js';
import { writeLine, type CliContext } from '../../terminal/context.js';
import { followStream } from '../follow-stream.js';
import { chatFrameText, type ChatFrame } from '../chat-frames.js';
import { printHelp, serverOptionsHelp, type Command } from './command.js';
import { clientFor, urlOption } from './server-flags.js';

/**
 * `cairn chat`: a conversation in the terminal. Each line typed (or piped in) is a message; the
 * server's answer streams back from the conversation's SSE stream as it comes, and the next line
 * is read once the turn has ended (the server answers one turn at a time). Slash commands are the
 * server's own (`/help`); `/quit` or end of input leaves.
 */

const QUIT = new Set(['/quit', '/exit']);

const conversationSchema = z.object({ conversationId: z.string() });

/** The stream of one conversation, read in the background: `turn()` resolves when the turn in flight has ended. */
function followConversation(ctx: CliContext, client: ApiClient, conversationId: string, signal: AbortSignal) {
  let ended: (() => void) | undefined;
  let atLineStart = true;
  const write = (text: string) => {
    if (text === '') return;
    ctx.stdout.write(text);
    atLineStart = text.endsWith('\n');
  };
  const following = followStream({
    client,
    conversationId,
    signal,
    onMessage(message) {
      let frame: ChatFrame;
      try {
        frame = JSON.parse(message.data) as ChatFrame;
      } catch {
        return false;
      }
      const shown = chatFrameText(frame);
      if (shown.stdout) write(shown.stdout);
      if (shown.stderr) {
        if (!atLineStart) write('\n');
        writeLine(ctx.stderr, shown.stderr);
      }
      if (shown.turnEnded) {
        if (!atLineStart) write('\n');
        ended?.();
        ended = undefined;
      }
      return false;
    },
  }).catch((err: unknown) => {
    if (!signal.aborted) throw err;
  });
  return {
    following,
    /** Resolves when the turn started after this call has ended. */
    nextTurnEnd: () => new Promise<void>((resolve) => (ended = resolve)),
  };
}

export const chatCommand: Command = {
  name: 'chat',
  summary: 'talk to the default assistant in the terminal, slash commands included',
  help: `Usage: cairn chat [--codebase <owner/repo>] [--url <url>]

Start a conversation and talk to it: each line you type (or pipe in) is a message, and the
answer streams back as it comes. Slash commands are the server's (type /help); /quit, /exit or
the end of input leaves. The conversation's id is printed first, on stderr; its history stays on
the server (GET /api/conversations/<id>/messages).

Options:
  --codebase <id>    bind the conversation to a registered codebase (owner/repo)
${serverOptionsHelp}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, { codebase: { type: 'string' }, ...urlOption });
    if (values.help) return printHelp(ctx, this.help);
    expectPositionals(this.name, positionals, []);
    const client = clientFor(ctx, values.url);
    const created = await client.request('POST', '/api/conversations', conversationSchema, { body: values.codebase ? { codebase_id: values.codebase } : {} });
    const conversationId = created.body.conversationId;
    writeLine(ctx.stderr, `Conversation ${conversationId}. Type /help for commands, /quit to leave.`);

    const controller = new AbortController();
    const removeInterrupt = ctx.onInterrupt(() => controller.abort());
    const stream = followConversation(ctx, client, conversationId, controller.signal);
    const lines = createInterface({ input: process.stdin, terminal: false });
    const prompt = () => ctx.stdinIsTTY && ctx.stderr.write('you> ');
    try {
      prompt();
      for await (const line of lines) {
        if (controller.signal.aborted) break;
        const message = line.trim();
        if (QUIT.has(message)) break;
        if (message === '') {
          prompt();
          continue;
        }
        const turnEnd = stream.nextTurnEnd();
        await client.request('POST', `/api/conversations/${encodeURIComponent(conversationId)}/message`, z.unknown(), { body: { message } });
        await Promise.race([turnEnd, stream.following]);
        prompt();
      }
    } finally {
      lines.close();
      controller.abort();
      removeInterrupt();
      await stream.following;
    }
    return 0;
  },
};
