import {
  insufficientScopes,
  invalidCredentials,
  loginRequired,
  notAuthorized,
  reportsAccessDenied,
  type Reply,
} from './google-errors.js';
import type { WorkspaceModel } from './google-model.js';
import type { AccessGrant, TokenEndpoint } from './google-token-endpoint.js';

/**
 * Who may call which method. Each method accepts the scopes its reference page lists under
 * "Authorization scopes" (users.list/get: admin.directory.user(.readonly), cloud-platform;
 * groups.list/get: admin.directory.group(.readonly); members.list: admin.directory.group(.readonly)
 * or admin.directory.group.member(.readonly); activities.list: admin.reports.audit.readonly).
 * A request without a token answers 401 "Login Required."; with an unknown or expired one, 401
 * "Invalid Credentials"; with none of the method's scopes, 403 insufficientPermissions; as a
 * service account that impersonates no one, or as a user who is not an administrator, 403 "Not
 * Authorized to access this resource/api" (the Reports API: 401 "Access denied…").
 */

export type ApiMethod =
  | 'directory.users.list'
  | 'directory.users.get'
  | 'directory.groups.list'
  | 'directory.groups.get'
  | 'directory.members.list'
  | 'reports.activities.list';

const AUTH = 'https://www.googleapis.com/auth/';
const USER = [`${AUTH}admin.directory.user`, `${AUTH}admin.directory.user.readonly`, `${AUTH}cloud-platform`];
const GROUP = [`${AUTH}admin.directory.group`, `${AUTH}admin.directory.group.readonly`];
const MEMBER = [
  ...GROUP,
  `${AUTH}admin.directory.group.member`,
  `${AUTH}admin.directory.group.member.readonly`,
];
const AUDIT = [`${AUTH}admin.reports.audit.readonly`];

const METHODS: Record<ApiMethod, { scopes: readonly string[]; rpc: string }> = {
  'directory.users.list': { scopes: USER, rpc: 'ccc.hosted.frontend.directory.v1.DirectoryUsers.List' },
  'directory.users.get': { scopes: USER, rpc: 'ccc.hosted.frontend.directory.v1.DirectoryUsers.Get' },
  'directory.groups.list': { scopes: GROUP, rpc: 'ccc.hosted.frontend.directory.v1.DirectoryGroups.List' },
  'directory.groups.get': { scopes: GROUP, rpc: 'ccc.hosted.frontend.directory.v1.DirectoryGroups.Get' },
  'directory.members.list': { scopes: MEMBER, rpc: 'ccc.hosted.frontend.directory.v1.DirectoryMembers.List' },
  'reports.activities.list': { scopes: AUDIT, rpc: 'ccc.hosted.frontend.reports.v1.ReportsActivities.List' },
};

/** The read-only scopes a directory reader asks for (granted to the default service account). */
export const READ_ONLY_SCOPES = [
  `${AUTH}admin.directory.user.readonly`,
  `${AUTH}admin.directory.group.readonly`,
  `${AUTH}admin.directory.group.member.readonly`,
  `${AUTH}admin.reports.audit.readonly`,
];

export function scopesOf(method: ApiMethod): readonly string[] {
  return METHODS[method].scopes;
}

/** The grant a request is made under, or Google's refusal. */
export function authorize(
  method: ApiMethod,
  headers: { authorization?: string },
  url: URL,
  tokens: TokenEndpoint,
  model: WorkspaceModel,
): AccessGrant | Reply {
  const header = headers.authorization;
  const bearer = header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : undefined;
  const token = bearer ?? url.searchParams.get('access_token') ?? undefined;
  if (token === undefined || token === '') return loginRequired();
  const grant = tokens.valid(token);
  if (!grant) return invalidCredentials();
  const { scopes, rpc } = METHODS[method];
  if (!scopes.some((scope) => grant.scopes.has(scope))) return insufficientScopes(rpc);
  const subject = grant.subject && model.users.get(grant.subject.id);
  const allowed = subject !== undefined && subject.isAdmin && !subject.suspended;
  if (!allowed) return method === 'reports.activities.list' ? reportsAccessDenied() : notAuthorized();
  return grant;
}
