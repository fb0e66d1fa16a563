import { z } from 'zod';
import { withoutNul } from '../shared/without-nul.js';

/**
 * A run's message (its `$ARGUMENTS` / `$USER_MESSAGE`): any text without a NUL byte, since it
 * reaches a process. The run route (wire/run-request.ts) and the chat's `/workflow run` check it alike.
 */
export const runMessageSchema = withoutNul(z.string({ error: 'message must be a string' }), () => 'message');
