import type { ApiMethod } from './google-access.js';
import type { AuditLog } from './google-audit-log.js';
import type { GoogleClock } from './google-clock.js';
import type { Reply } from './google-errors.js';
import { getGroup, listGroups, listMembers } from './google-groups-route.js';
import type { WorkspaceModel } from './google-model.js';
import type { PageTokens } from './google-paging.js';
import { listActivities } from './google-reports-route.js';
import { getUser, listUsers } from './google-users-route.js';

/**
 * The methods served, by path (admin.googleapis.com, as `rootUrl` puts them):
 *
 *   GET /admin/directory/v1/users                         directory.users.list
 *   GET /admin/directory/v1/users/{userKey}               directory.users.get
 *   GET /admin/directory/v1/groups                        directory.groups.list
 *   GET /admin/directory/v1/groups/{groupKey}             directory.groups.get
 *   GET /admin/directory/v1/groups/{groupKey}/members     directory.members.list
 *   GET /admin/reports/v1/activity/users/{userKey|all}/applications/{applicationName}
 *                                                         reports.activities.list
 */

export interface RouteContext {
  model: WorkspaceModel;
  log: AuditLog;
  clock: GoogleClock;
  tokens: PageTokens;
}

export interface Route {
  method: ApiMethod;
  run: (ctx: RouteContext, url: URL) => Reply;
}

export function routeOf(pathname: string): Route | undefined {
  const parts = pathname.split('/').slice(1);
  let keys: string[];
  try {
    keys = parts.map((part) => decodeURIComponent(part));
  } catch {
    return undefined;
  }
  const [admin, api, version, ...rest] = keys;
  if (admin !== 'admin' || version !== 'v1') return undefined;
  if (api === 'directory') return directory(rest);
  if (api === 'reports') return reports(rest);
  return undefined;
}

function directory(rest: string[]): Route | undefined {
  const [collection, key, tail, ...more] = rest;
  if (more.length > 0 || key === '') return undefined;
  if (collection === 'users' && tail === undefined) {
    if (key === undefined) return { method: 'directory.users.list', run: (ctx, url) => listUsers(ctx, url) };
    return { method: 'directory.users.get', run: (ctx, url) => getUser(ctx, url, key) };
  }
  if (collection !== 'groups') return undefined;
  if (key === undefined) return { method: 'directory.groups.list', run: (ctx, url) => listGroups(ctx, url) };
  if (tail === undefined)
    return { method: 'directory.groups.get', run: (ctx, url) => getGroup(ctx, url, key) };
  if (tail === 'members')
    return { method: 'directory.members.list', run: (ctx, url) => listMembers(ctx, url, key) };
  return undefined;
}

function reports(rest: string[]): Route | undefined {
  const [activity, users, userKey, applications, application, ...more] = rest;
  if (activity !== 'activity' || users !== 'users' || applications !== 'applications') return undefined;
  if (!userKey || !application || more.length > 0) return undefined;
  return {
    method: 'reports.activities.list',
    run: (ctx, url) => listActivities(ctx, url, userKey, application),
  };
}
