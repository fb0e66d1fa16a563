import { useEffect, useState } from 'preact/hooks';
import { sendJson } from '../api.js';

/** `POST /api/schedules/preview`'s answer (src/wire/schedules.ts). */
export interface DuePreview {
  next_fire_times: string[];
  problem: string | null;
}

/** How long typing pauses before the server is asked. */
const SETTLE_MS = 250;

/**
 * The next due times of a cron expression and zone as they are typed, read by the server the way
 * creating the schedule reads them; undefined until there is something to ask about. An answer
 * that arrives after the text changed again is dropped.
 */
export function useDuePreview(cron: string, timezone: string): DuePreview | undefined {
  const [preview, setPreview] = useState<DuePreview | undefined>(undefined);
  useEffect(() => {
    if (cron.trim() === '') {
      setPreview(undefined);
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      const body = timezone.trim() ? { cron, timezone: timezone.trim() } : { cron };
      sendJson<DuePreview>('POST', '/api/schedules/preview', body)
        .then((answer) => current && setPreview(answer))
        .catch(() => current && setPreview(undefined));
    }, SETTLE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [cron, timezone]);
  return preview;
}
