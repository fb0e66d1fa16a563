/**
 * The runs page's filters as they live in the address (`status`, `workflow`, `codebase`, `from`,
 * `to`, `q`, `page`) and the query of `GET /api/dashboard/runs` they stand for. `from` and `to`
 * are days (`2026-01-31`) in the browser's time zone, both included: `from` is sent as `after`
 * (that day's local midnight) and `to` as `before` (the next day's local midnight, which the
 * route excludes).
 */

export interface RunFilters {
  status: string | undefined;
  workflow: string | undefined;
  codebase: string | undefined;
  from: string | undefined;
  to: string | undefined;
  q: string | undefined;
  page: number;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A day typed in the address that is no day is ignored, as the date field would show it empty. */
function dayOf(text: string | null): string | undefined {
  if (!text || !DAY.test(text)) return undefined;
  return Number.isNaN(localMidnight(text).getTime()) ? undefined : text;
}

function localMidnight(day: string): Date {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const date = new Date(y, m - 1, d);
  // new Date(2026, 1, 31) rolls over to March: such a day does not exist.
  return date.getFullYear() === y && date.getMonth() === m - 1 && date.getDate() === d ? date : new Date(NaN);
}

export function filtersOf(query: URLSearchParams): RunFilters {
  const page = Number(query.get('page') ?? '1');
  return {
    status: query.get('status') ?? undefined,
    workflow: query.get('workflow') ?? undefined,
    codebase: query.get('codebase') ?? undefined,
    from: dayOf(query.get('from')),
    to: dayOf(query.get('to')),
    q: query.get('q') ?? undefined,
    page: Number.isInteger(page) && page > 0 ? page : 1,
  };
}

/** The dashboard route's query for the filters and a page of `pageSize` runs. */
export function dashboardQuery(filters: RunFilters, pageSize: number): Record<string, string | number | undefined> {
  let before: string | undefined;
  if (filters.to) {
    const end = localMidnight(filters.to);
    end.setDate(end.getDate() + 1);
    before = end.toISOString();
  }
  return {
    status: filters.status,
    workflow: filters.workflow,
    codebaseId: filters.codebase,
    after: filters.from ? localMidnight(filters.from).toISOString() : undefined,
    before,
    search: filters.q,
    limit: pageSize,
    offset: (filters.page - 1) * pageSize,
  };
}
