import { z } from 'zod';
import type { UnreadableLines } from '../provider-adapter.js';

/**
 * Reading a CLI's JSON-lines stream through zod schemas. Each vendor's reader (claude/stream.ts,
 * codex/stream.ts, opencode/stream.ts) names its events with `z.looseObject` schemas: fields it
 * does not read pass through, and an event type it does not know is skipped, as the vendors add
 * both between versions. What it cannot read is counted, never dropped in silence: a line that is
 * not a JSON object with a `type`, or a known event whose fields have the wrong shape. The count
 * and the first such line reach the attempt's record (`diagnostics.unreadableLines`).
 */

/** An event line: a JSON object with a string `type`; every other field passes through. */
const eventSchema = z.looseObject({ type: z.string() });

export type StreamEvent = z.infer<typeof eventSchema>;

/** The `unreadableLines` of an attempt's end: present only when a line could not be read. */
export function unreadableOf(tally: UnreadableTally): { unreadableLines?: UnreadableLines } {
  const summary = tally.summary();
  return summary === undefined ? {} : { unreadableLines: summary };
}

export class UnreadableTally {
  count = 0;
  private first: string | undefined;

  /** Notes a line the reader could not read, and why. */
  note(line: string, why: string): void {
    this.count += 1;
    // Kept whole: the record cuts it once the attempt's secrets are masked (a cut first could
    // leave half a secret the mask no longer knows).
    this.first ??= `${why}: ${line}`;
  }

  /** The count and the first line, or undefined when every line was read. */
  summary(): UnreadableLines | undefined {
    return this.first === undefined ? undefined : { count: this.count, first: this.first };
  }

  /**
   * One line as an event: a JSON object with a string `type`, else undefined (noted, unless
   * the line is blank).
   */
  event(line: string): StreamEvent | undefined {
    if (line.trim() === '') return undefined;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.note(line, 'not JSON');
      return undefined;
    }
    const parsed = eventSchema.safeParse(value);
    if (!parsed.success) {
      this.note(line, 'not an event (a JSON object with a string "type")');
      return undefined;
    }
    return parsed.data;
  }

  /**
   * A known event, or a part of one (`what` names it: `"assistant" event`), read through its
   * schema; else undefined, noted with the first field that had the wrong shape.
   */
  read<S extends z.ZodType>(schema: S, value: unknown, line: string, what: string): z.infer<S> | undefined {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : 'its shape';
    this.note(line, `${what} with ${where} of the wrong shape (${issue?.message ?? 'invalid'})`);
    return undefined;
  }
}
