import { activityJson, RETENTION_MS, type Activity, type AuditLog } from './google-audit-log.js';
import type { GoogleClock } from './google-clock.js';
import { badRequest, badTimeRange, invalidInput, invalidValue, type Reply } from './google-errors.js';
import type { WorkspaceModel } from './google-model.js';
import { walk, type PageTokens } from './google-paging.js';
import { intParam, isReply, selectFields } from './google-params.js';

/**
 * `GET /admin/reports/v1/activity/users/{userKey|all}/applications/{applicationName}` (Reports API
 * activities.list): records newest first, `maxResults` 1–1000 (default 1000), `pageToken`,
 * `startTime`/`endTime` in RFC 3339 (`startTime` must not be after `endTime`, nor after now, nor
 * more than 180 days back — Google answers all three with one message), `eventName`, `filters`
 * (`PARAMETER==value` or `PARAMETER<>value`, comma-separated, all must hold), `customerId`.
 * Only records already visible (audit-log lag) are answered; an empty answer has no `items`.
 */

/** Applications the Reports API knows; only admin and groups_enterprise hold records here. */
const APPLICATIONS = [
  'access_transparency',
  'admin',
  'calendar',
  'chat',
  'chrome',
  'context_aware_access',
  'data_studio',
  'drive',
  'gcp',
  'gplus',
  'groups',
  'groups_enterprise',
  'jamboard',
  'keep',
  'login',
  'meet',
  'mobile',
  'rules',
  'saml',
  'token',
  'user_accounts',
  'vault',
];

const ACTIVITY_FIELDS = ['kind', 'id', 'etag', 'actor', 'ownerDomain', 'ipAddress', 'events'];
const SHAPE = {
  names: ['kind', 'etag', 'items', 'nextPageToken'],
  list: { key: 'items', names: ACTIVITY_FIELDS },
};

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

interface Context {
  log: AuditLog;
  model: WorkspaceModel;
  clock: GoogleClock;
  tokens: PageTokens;
}

export function listActivities(ctx: Context, url: URL, userKey: string, application: string): Reply {
  if (!APPLICATIONS.includes(application)) return invalidValue('applicationName', application);
  const actorId = userKey === 'all' ? undefined : ctx.model.user(userKey)?.id;
  if (userKey !== 'all' && actorId === undefined) return badRequest();
  const customerId = url.searchParams.get('customerId');
  if (customerId !== null && customerId !== ctx.model.customerId) return badRequest();
  const limit = intParam(url, 'maxResults', { min: 1, max: 1000, fallback: 1000 });
  if (isReply(limit)) return limit;
  const range = timeRange(url, ctx.clock.now());
  if (isReply(range)) return range;
  const filters = parseFilters(url.searchParams.get('filters'));
  if (filters === undefined) return invalidInput('filters');
  const token = url.searchParams.get('pageToken');
  const after = token === null ? undefined : ctx.tokens.read(url, token);
  if (token !== null && after === undefined) return invalidInput('pageToken');
  const eventName = url.searchParams.get('eventName');
  const now = ctx.clock.now();
  const { keys, get } = ctx.log.index();
  const accept = (key: string) => {
    const activity = get(key);
    if (activity.applicationName !== application || activity.visibleAt > now) return false;
    if (activity.time < range.start || activity.time >= range.end) return false;
    if (actorId !== undefined && activity.actor.profileId !== actorId) return false;
    return matches(activity, eventName, filters);
  };
  const page = walk(keys, (key) => key, { after, descending: true, limit, accept });
  const body: Record<string, unknown> = {
    kind: 'admin#reports#activities',
    etag: `"${ctx.log.customerId}/${now}"`,
  };
  if (page.ids.length > 0) body.items = page.ids.map((key) => activityJson(ctx.log, get(key)));
  if (page.next !== undefined) body.nextPageToken = ctx.tokens.issue(url, page.next);
  const selected = selectFields(body, url.searchParams.get('fields'), SHAPE);
  return isReply(selected) ? selected : { status: 200, body: selected };
}

function timeRange(url: URL, now: number): { start: number; end: number } | Reply {
  const parse = (name: string, fallback: number): number | Reply => {
    const raw = url.searchParams.get(name);
    if (raw === null) return fallback;
    const ms = RFC3339.test(raw) ? Date.parse(raw) : NaN;
    return Number.isNaN(ms) ? invalidValue(name, raw) : ms;
  };
  const end = parse('endTime', now);
  if (isReply(end)) return end;
  const start = parse('startTime', now - RETENTION_MS);
  if (isReply(start)) return start;
  if (start > end || start > now || start < now - RETENTION_MS) return badTimeRange();
  // The end is inclusive, to the millisecond.
  return { start, end: end + 1 };
}

interface Filter {
  name: string;
  equals: boolean;
  value: string;
}

function parseFilters(raw: string | null): Filter[] | undefined {
  if (raw === null || raw === '') return [];
  const filters: Filter[] = [];
  for (const part of raw.split(',')) {
    const match = /^([A-Za-z_][\w]*)(==|<>)(.*)$/.exec(part.trim());
    if (!match) return undefined;
    filters.push({ name: match[1] as string, equals: match[2] === '==', value: match[3] as string });
  }
  return filters;
}

function matches(activity: Activity, eventName: string | null, filters: readonly Filter[]): boolean {
  return activity.events.some((event) => {
    if (eventName !== null && event.name !== eventName) return false;
    return filters.every((filter) => {
      const parameter = event.parameters.find((p) => p.name === filter.name);
      const value = parameter?.value ?? parameter?.intValue ?? parameter?.boolValue?.toString();
      return filter.equals ? value === filter.value : value !== filter.value;
    });
  });
}
