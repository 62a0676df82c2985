import { badRequest, domainNotFound, invalidInput, resourceNotFound, type Reply } from './google-errors.js';
import type { UserRecord, WorkspaceModel } from './google-model.js';
import { walk, type PageTokens } from './google-paging.js';
import { boolParam, enumParam, intParam, isReply, selectFields } from './google-params.js';
import { QueryError, userQuery, type Predicate } from './google-query.js';
import { userJson, type Projection } from './google-resources.js';

/**
 * `users.list` and `users.get` of the Directory API (reference/rest/v1/users/list, get):
 *
 * - `customer` (`my_customer` or the customer's id) or `domain` is required — without either,
 *   400 Bad Request (as agm #9 and google-api-python-client #579 saw it); a domain not the
 *   customer's, 404 "Domain not found.";
 * - `maxResults` 1–500, default 100; `orderBy` email|givenName|familyName, `sortOrder`;
 * - `projection` basic (default) | custom (with `customFieldMask`, only then) | full — custom
 *   schemas are only in the answer with custom or full;
 * - `query` (google-query.ts), `showDeleted=true` lists the deleted users and only them;
 * - `fields` partial responses; `pageToken` (google-paging.ts). An empty page has no `users`.
 * - `users.get`: the userKey is the id, the primary address or an alias; 404 otherwise.
 */

export const USER_FIELDS = [
  'kind',
  'id',
  'etag',
  'primaryEmail',
  'name',
  'isAdmin',
  'isDelegatedAdmin',
  'lastLoginTime',
  'creationTime',
  'agreedToTerms',
  'suspended',
  'suspensionReason',
  'archived',
  'changePasswordAtNextLogin',
  'ipWhitelisted',
  'emails',
  'aliases',
  'nonEditableAliases',
  'externalIds',
  'relations',
  'organizations',
  'phones',
  'addresses',
  'customerId',
  'orgUnitPath',
  'isMailboxSetup',
  'isEnrolledIn2Sv',
  'isEnforcedIn2Sv',
  'includeInGlobalAddressList',
  'deletionTime',
  'customSchemas',
  'thumbnailPhotoUrl',
  'thumbnailPhotoEtag',
  'recoveryEmail',
  'recoveryPhone',
  'isGuestUser',
  'guestAccountInfo',
  'languages',
  'locations',
  'notes',
  'websites',
  'keywords',
  'gender',
  'ims',
  'posixAccounts',
  'sshPublicKeys',
];
const LIST_SHAPE = {
  names: ['kind', 'etag', 'users', 'nextPageToken', 'trigger_event'],
  list: { key: 'users', names: USER_FIELDS },
};

interface Context {
  model: WorkspaceModel;
  tokens: PageTokens;
}

type Order = 'email' | 'givenName' | 'familyName';

export function listUsers(ctx: Context, url: URL): Reply {
  const { model } = ctx;
  const params = url.searchParams;
  const customer = params.get('customer');
  const domain = params.get('domain')?.toLowerCase() ?? null;
  if (customer === null && domain === null) return badRequest();
  if (customer !== null && customer !== 'my_customer' && customer !== model.customerId) return badRequest();
  if (domain !== null && !model.domains.includes(domain)) return domainNotFound();
  const limit = intParam(url, 'maxResults', { min: 1, max: 500, fallback: 100 });
  if (isReply(limit)) return limit;
  const view = projectionOf(url);
  if (isReply(view)) return view;
  const order = enumParam<Order>(url, 'orderBy', ['email', 'givenName', 'familyName']);
  const direction = enumParam(url, 'sortOrder', ['ASCENDING', 'DESCENDING'], 'ASCENDING');
  const viewType = enumParam(url, 'viewType', ['admin_view', 'domain_public'], 'admin_view');
  const deleted = boolParam(url, 'showDeleted');
  for (const checked of [order, direction, viewType, deleted]) if (isReply(checked)) return checked;
  let holds: Predicate<UserRecord> | undefined;
  try {
    const query = params.get('query');
    holds = query === null || query.trim() === '' ? undefined : userQuery(query);
  } catch (error) {
    if (error instanceof QueryError) return invalidInput('query');
    throw error;
  }
  const token = params.get('pageToken');
  const after = token === null ? undefined : ctx.tokens.read(url, token);
  if (token !== null && after === undefined) return invalidInput('pageToken');
  const source = deleted === true ? model.deleted : model.users;
  const sortKey = order === undefined || isReply(order) ? undefined : keyFor(order);
  const get = (id: string) => source.get(id) as UserRecord;
  const ids = model.sortedIds(
    `users:${String(deleted)}:${String(order)}`,
    () => source.keys(),
    sortKey && ((id) => sortKey(get(id))),
  );
  const keyOf = sortKey ? (id: string) => `${sortKey(get(id))}\u0000${id}` : (id: string) => id;
  const accept = (id: string) => {
    const user = get(id);
    return (
      (domain === null || user.primaryEmail.toLowerCase().endsWith(`@${domain}`)) && (!holds || holds(user))
    );
  };
  const page = walk(ids, keyOf, {
    after,
    descending: direction === 'DESCENDING',
    limit,
    accept: domain || holds ? accept : undefined,
  });
  const body: Record<string, unknown> = {
    kind: 'admin#directory#users',
    etag: `"${model.customerId}/${model.version}"`,
  };
  if (page.ids.length > 0)
    body.users = page.ids.map((id) => userJson(model, get(id), view.projection, view.mask));
  if (page.next !== undefined) body.nextPageToken = ctx.tokens.issue(url, page.next);
  return answer(body, url, LIST_SHAPE);
}

export function getUser(ctx: Context, url: URL, userKey: string): Reply {
  const view = projectionOf(url);
  if (isReply(view)) return view;
  const viewType = enumParam(url, 'viewType', ['admin_view', 'domain_public'], 'admin_view');
  if (isReply(viewType)) return viewType;
  const user = ctx.model.user(userKey);
  if (!user) return resourceNotFound('userKey');
  return answer(userJson(ctx.model, user, view.projection, view.mask), url, { names: USER_FIELDS });
}

/** `projection`, and `customFieldMask` — required with custom, refused without it. */
function projectionOf(url: URL): { projection: Projection; mask: string[] } | Reply {
  const projection = enumParam<Projection>(url, 'projection', ['basic', 'custom', 'full'], 'basic');
  if (isReply(projection) || projection === undefined) return projection ?? badRequest();
  const mask = url.searchParams.get('customFieldMask');
  if ((projection === 'custom') !== (mask !== null && mask !== '')) return invalidInput('customFieldMask');
  return { projection, mask: mask === null ? [] : mask.split(',').map((name) => name.trim()) };
}

function keyFor(order: Order): (user: UserRecord) => string {
  if (order === 'email') return (user) => user.primaryEmail.toLowerCase();
  if (order === 'givenName') return (user) => user.givenName.toLowerCase();
  return (user) => user.familyName.toLowerCase();
}

export function answer(
  body: Record<string, unknown>,
  url: URL,
  shape: Parameters<typeof selectFields>[2],
): Reply {
  const selected = selectFields(body, url.searchParams.get('fields'), shape);
  return isReply(selected) ? selected : { status: 200, body: selected };
}
