/**
 * The socket's own error code (ECONNREFUSED, ENOTFOUND, ECONNRESET …) of a failed connection,
 * which fetch and the SDKs keep a cause or two below their own error; undefined when none is.
 */
export function socketCodeOf(err: unknown): string | undefined {
  for (let e: any = err, depth = 0; e && depth < 5; e = e.cause, depth++) {
    if (typeof e.code === 'string' && /^E[A-Z_]+$/.test(e.code)) return e.code;
  }
  return undefined;
}
