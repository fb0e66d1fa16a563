import { z } from 'zod';

/**
 * The instance snapshot of a fan-out wrapper, written once as the `fan_out_instances` event's
 * `data.instances` before any instance starts. The first valid snapshot is restored on resume,
 * so a resumed fan-out runs over the same items even if the producer's output changed.
 */
export const fanOutInstanceSchema = z.strictObject({
  /** Position in item order, equal to the index in `instances`. */
  ordinal: z.number().int().nonnegative(),
  /** Stable identity of the item (unique within the snapshot). */
  identity: z.string().min(1),
  item: z.json(),
  inputs: z.record(z.string(), z.json()),
});
export type FanOutInstance = z.infer<typeof fanOutInstanceSchema>;

export const fanOutInstancesSchema = z.array(fanOutInstanceSchema).superRefine((instances, ctx) => {
  const seen = new Set<string>();
  instances.forEach((instance, index) => {
    if (instance.ordinal !== index) {
      ctx.addIssue({ code: 'custom', path: [index, 'ordinal'], message: `ordinal must be ${index}` });
    }
    if (seen.has(instance.identity)) {
      ctx.addIssue({ code: 'custom', path: [index, 'identity'], message: `duplicate identity '${instance.identity}'` });
    }
    seen.add(instance.identity);
  });
});

export const FAN_OUT_INSTANCES_EVENT = 'fan_out_instances';
