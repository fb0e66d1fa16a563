import { z } from 'zod';
import type { JobKind } from './job.js';

/**
 * What a job came to, for the kinds whose requester reads it back (the API answers a resume once
 * the supervisor has carried it out): one JSON value on the job row's `result`, of the kind's
 * schema, so no reader parses text. Other kinds' results are notes for people (the log, the job
 * row), read by no code.
 */

/** The job no longer applied when the supervisor came to it (the run changed state meanwhile). */
const ignoredSchema = z.object({ outcome: z.literal('ignored'), reason: z.string() }).strict();
/** The job could not be carried out (its handler failed, or it was given up after its attempts). */
const failedSchema = z.object({ outcome: z.literal('failed'), reason: z.string() }).strict();

/** `resume_run`: the run resumed, waits for a place of its concurrency key, was refused one, or the job did not apply. */
export const resumeRunResultSchema = z.discriminatedUnion('outcome', [
  z.object({ outcome: z.literal('resumed') }).strict(),
  /** Pending until a place of its key frees (on_overlap: queue or cancel_other): whom it waits for, and its place in line. */
  z.object({ outcome: z.literal('waiting'), key: z.string(), position: z.number().int().positive(), waitingFor: z.array(z.string()) }).strict(),
  /** on_overlap: refuse and every place taken: the run is left as it was; `reason` is the refusal's text. */
  z.object({ outcome: z.literal('refused'), reason: z.string(), key: z.string(), holders: z.array(z.string()) }).strict(),
  ignoredSchema,
  failedSchema,
]);
export type ResumeRunResult = z.infer<typeof resumeRunResultSchema>;

/** The kinds whose result is typed, each with its schema (a union that has the `failed` variant). */
export const jobResultSchemas = {
  resume_run: resumeRunResultSchema,
} as const satisfies Partial<Record<JobKind, z.ZodType<{ outcome: string }>>>;
export type TypedJobKind = keyof typeof jobResultSchemas;

/** What a handler of `kind` answers: its typed result, or a note for people. */
export type JobResultOf<K extends JobKind> = K extends TypedJobKind ? z.infer<(typeof jobResultSchemas)[K]> : string;

function isTyped(kind: JobKind): kind is TypedJobKind {
  return Object.hasOwn(jobResultSchemas, kind);
}

/** The text stored on the job row for a handler's answer. */
export function encodeJobResult<K extends JobKind>(kind: K, result: JobResultOf<K>): string {
  return isTyped(kind) ? JSON.stringify(jobResultSchemas[kind].parse(result)) : (result as string);
}

/** The result stored for a job that was given up (or could not be handled at all), as its kind writes it. */
export function givenUpResult(kind: JobKind, reason: string): string {
  return isTyped(kind) ? JSON.stringify({ outcome: 'failed', reason }) : `failed: ${reason}`;
}

/**
 * A typed kind's stored result, read back. A row that does not hold one (written by a supervisor
 * of another version) reads as failed, saying so, rather than as a success it may not be.
 */
export function decodeJobResult<K extends TypedJobKind>(kind: K, stored: string): JobResultOf<K> {
  let value: unknown;
  try {
    value = JSON.parse(stored);
  } catch {
    value = undefined;
  }
  const parsed = jobResultSchemas[kind].safeParse(value);
  if (parsed.success) return parsed.data as JobResultOf<K>;
  // Every typed kind's union has the `failed` variant (givenUpResult writes it).
  return failedSchema.parse({ outcome: 'failed', reason: `the ${kind} job's result is not one this version reads: ${stored}` }) as JobResultOf<K>;
}
