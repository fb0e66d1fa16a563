import { z } from 'zod';

/**
 * The IPC contract between the launcher and the two processes it forks (API and supervisor).
 * A child sends `ready` once it is up (the API adds the port it listens on); the launcher sends
 * `shutdown`, and the child exits 0 when done (`drain: true` lets in-flight nodes finish).
 */
export const childReadyMessageSchema = z.object({
  type: z.literal('ready'),
  port: z.number().int().positive().optional(),
});
export type ChildReadyMessage = z.infer<typeof childReadyMessageSchema>;

export const shutdownMessageSchema = z.object({ type: z.literal('shutdown'), drain: z.boolean() });
export type ShutdownMessage = z.infer<typeof shutdownMessageSchema>;
