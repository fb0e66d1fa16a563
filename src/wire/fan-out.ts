import { z } from 'zod';

/** `…/fan-out/{nodeId}` path parameters: the run and its fan-out node's id. */
export const fanOutParamsSchema = z.object({
  runId: z.string().min(1).max(200).describe('Run id as returned when the run was started'),
  nodeId: z.string().min(1).max(200).describe('The id of a `workflow:` node with `fan_out` in the run’s workflow'),
});

export const fanOutGridQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100).describe('Items per page (1–500, default 100)'),
  offset: z.coerce.number().int().min(0).default(0).describe('Index of the first item of the page (the previous page’s nextOffset)'),
});

export const fanOutItemStatusSchema = z.enum(['pending', 'running', 'paused', 'completed', 'failed', 'cancelled']);

export const fanOutGridItemSchema = z.object({
  index: z.number().int().nonnegative().describe('The item’s position in `items` (0-based)'),
  identity: z.string().nullable().describe('In-run instances: the identity derived from the item; null for child runs'),
  item: z.unknown().describe('The item as the fan-out received it'),
  childRunId: z.string().nullable().describe('Child runs: the item’s run; null in-run or before it started'),
  status: fanOutItemStatusSchema,
  attempts: z.number().int().nonnegative().describe('How many times the item was started (passes of a child run, attempts of an instance)'),
  durationMs: z.number().nonnegative().nullable().describe('Of its last attempt, once it ended'),
  costUsd: z.number().nonnegative().nullable().describe('USD its provider calls reported over every attempt; null when none was reported'),
  outputPreview: z.string().nullable().describe('The first 200 characters of its output, once it completed'),
  error: z.string().nullable().describe('Why it failed, when it did'),
});

export const fanOutGridSchema = z.object({
  runId: z.string(),
  nodeId: z.string(),
  mode: z.enum(['in_run', 'child_runs']).nullable().describe('How the items run; null before the node started'),
  total: z.number().int().nonnegative().describe('Items in all (0 before the node snapshotted them)'),
  counts: z.record(fanOutItemStatusSchema, z.number().int().nonnegative()).describe('Items per status, over all pages'),
  items: z.array(fanOutGridItemSchema),
  nextOffset: z.number().int().nonnegative().nullable().describe('The offset of the next page; null on the last'),
});
export type FanOutGrid = z.infer<typeof fanOutGridSchema>;
export type FanOutGridItem = z.infer<typeof fanOutGridItemSchema>;
export type FanOutItemStatus = z.infer<typeof fanOutItemStatusSchema>;

export const fanOutRetryResponseSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  /** How many failed items run again. */
  retried: z.number().int().nonnegative(),
});
