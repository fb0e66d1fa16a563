/**
 * The headers every dashboard answer carries. The page loads nothing but its own files and talks
 * only to its own origin (`default-src 'self'`: no inline script, no CDN, no web font, and
 * `connect-src` falls back to it, so the page cannot send a run's data anywhere else); no other
 * site may frame it (clickjacking an approve button).
 */
export const CONTENT_SECURITY_POLICY = "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export const pageHeaders: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

/** Hashed assets never change under their name. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The page names the current assets: asked for again every time. */
export const NO_CACHE = 'no-cache';
