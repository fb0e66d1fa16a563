import { z } from 'zod';
import { overlapPolicySchema } from '../../shared/overlap-policy.js';
import { catchUpMsOf, catchUpText, DEFAULT_CATCH_UP } from './catch-up.js';
import { cronProblem, timezoneProblem } from './cron-times.js';
import { valueFromText, type InputTyping } from '../schema/input-types.js';

/**
 * A workflow's `triggers:`, checked when the workflow loads. Today one kind: `schedule`, which
 * the supervisor keeps as a stored schedule while the file declares it (docs/schedules.md).
 *
 *   triggers:
 *     - schedule: { cron: '30 2 * * *', timezone: Europe/Berlin, inputs: { depth: 2 }, overlap: skip, catch_up: 1h }
 */
export const scheduleTriggerSchema = z
  .object({
    cron: z.string().trim().min(1),
    /** An IANA time zone name; the cron expression is read in its wall-clock time. */
    timezone: z
      .string()
      .trim()
      .min(1)
      .superRefine((zone, ctx) => {
        const problem = timezoneProblem(zone);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .default('UTC'),
    /** Run inputs; numbers and booleans are kept as their text. */
    inputs: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform((value) => String(value)))
      .default({}),
    overlap: overlapPolicySchema.default('skip'),
    catch_up: z
      .union([z.string(), z.number()])
      .transform((value) => String(value))
      .superRefine((value, ctx) => {
        if (catchUpMsOf(value) === undefined) ctx.addIssue({ code: 'custom', message: catchUpText(value) });
      })
      .default(DEFAULT_CATCH_UP),
  })
  .superRefine((trigger, ctx) => {
    // The zone is checked on its own field; the expression only with a zone that is one.
    const problem = timezoneProblem(trigger.timezone) ? undefined : cronProblem(trigger.cron, trigger.timezone);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['cron'] });
  });
export type ScheduleTrigger = z.infer<typeof scheduleTriggerSchema>;

export const triggerSchema = z.strictObject({ schedule: scheduleTriggerSchema });
export type Trigger = z.infer<typeof triggerSchema>;

export const triggersSchema = z.array(triggerSchema).min(1);

/** A trigger's inputs that the workflow does not declare, or whose declared type refuses them (their run would be refused). */
export function triggerInputProblems(triggers: readonly Trigger[] | undefined, declared: Readonly<Record<string, InputTyping>> | undefined): string[] {
  const names = Object.keys(declared ?? {});
  return (triggers ?? []).flatMap((trigger, index) =>
    Object.entries(trigger.schedule.inputs).flatMap(([key, value]) => {
      const where = `'triggers[${index}].schedule.inputs.${key}'`;
      if (!names.includes(key)) return [`${where} is not an input of this workflow; declared inputs: ${names.join(', ') || 'none'}`];
      // A schedule's inputs are text (a number or boolean as its text), converted by the type as a run's are.
      const converted = valueFromText(declared![key]!, value);
      return converted.ok ? [] : [`${where} does not fit the input's declared type: ${converted.problem}`];
    }),
  );
}
