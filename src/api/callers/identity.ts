import type { FastifyRequest } from 'fastify';
import { CairnError } from '../../shared/errors.js';

/**
 * Who is asking. Cairn has no sign-in of its own (contract, Authentication): a reverse proxy or
 * a local tool names the user in the `X-Service-User` header. The value is trimmed; an empty or
 * absent header means no identity, and model resolution stays config-only.
 */
export const SERVICE_USER_HEADER = 'x-service-user';

/** Longest user id accepted; a longer header is a client bug, answered 400 rather than stored. */
export const MAX_USER_ID_LENGTH = 256;

export function requestUser(request: FastifyRequest): string | null {
  const raw = request.headers[SERVICE_USER_HEADER];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? '';
  if (value === '') return null;
  if (value.length > MAX_USER_ID_LENGTH) {
    throw new CairnError('VALIDATION_FAILED', `X-Service-User is longer than ${MAX_USER_ID_LENGTH} characters`);
  }
  return value;
}

/** The identity a per-user route needs; without one the route answers 401. */
export function requireUser(request: FastifyRequest): string {
  const user = requestUser(request);
  if (user === null) {
    throw new CairnError(
      'IDENTITY_REQUIRED',
      'This route is per user: send the user id in the X-Service-User header',
    );
  }
  return user;
}
