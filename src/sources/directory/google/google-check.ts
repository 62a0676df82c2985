import { isBridgeError } from '../../../domain/errors.js';
import type { SourceCheck } from '../directory-source.js';
import { DIRECTORY, GoogleApi, REPORTS, SCOPES, signIn, type GoogleAccess } from './google-api.js';
import { shortScope } from './google-refusals.js';

/**
 * What check-config asks of the `google` source: a sign-in with the read-only scopes, then one
 * cheap read per scope — users.list, groups.list, a group's members.list, activities.list, each
 * `maxResults=1` — every refusal in plain words. When the sign-in is refused for its delegation,
 * each scope signs in alone, to say which ones the Admin console has not granted. Nothing is kept.
 */
export async function checkGoogle(access: GoogleAccess): Promise<SourceCheck[]> {
  try {
    await access.auth.authorization();
  } catch (error) {
    const failed: SourceCheck = { what: 'sign-in', ok: false, detail: messageOf(error) };
    const delegation = isBridgeError(error, 'source_unauthorized') && /delegation/.test(error.message);
    return delegation ? [failed, ...(await scopesAlone(access))] : [failed];
  }
  const api = new GoogleApi(access);
  try {
    return [{ what: 'sign-in', ok: true }, ...(await reads(api))];
  } finally {
    await api.close();
  }
}

/** One cheap read per scope; members are read of the first group listed, if any. */
async function reads(api: GoogleApi): Promise<SourceCheck[]> {
  const { customer } = api.access.settings;
  const one = { maxResults: '1' };
  const users = await read(api, SCOPES.users, `${DIRECTORY}/users`, {
    customer,
    ...one,
    fields: 'users(id)',
  });
  let groupId: string | undefined;
  const groups = await read(api, SCOPES.groups, `${DIRECTORY}/groups`, { customer, ...one }, (body) => {
    groupId = (body as { groups?: { id?: string }[] }).groups?.[0]?.id;
  });
  const what = shortScope(SCOPES.members);
  const members: SourceCheck = !groups.ok
    ? { what, ok: false, detail: 'not checked: the groups could not be read' }
    : groupId === undefined
      ? { what, ok: true, detail: 'no group to read members of' }
      : await read(api, SCOPES.members, `${DIRECTORY}/groups/${encodeURIComponent(groupId)}/members`, one);
  const reportsCustomer = customer === 'my_customer' ? {} : { customerId: customer };
  const audit = await read(api, SCOPES.audit, `${REPORTS}/admin`, { ...one, ...reportsCustomer });
  return [users, groups, members, audit];
}

async function read(
  api: GoogleApi,
  scope: string,
  path: string,
  params: Readonly<Record<string, string | undefined>>,
  seen?: (body: unknown) => void,
): Promise<SourceCheck> {
  try {
    const answer = await api.get(api.url(path, params));
    seen?.(answer.body);
    return { what: shortScope(scope), ok: true };
  } catch (error) {
    return { what: shortScope(scope), ok: false, detail: messageOf(error) };
  }
}

/** Each scope signed in for alone: which of them the domain-wide delegation grants. */
async function scopesAlone(access: GoogleAccess): Promise<SourceCheck[]> {
  return Promise.all(
    Object.values(SCOPES).map(async (scope) => {
      const alone = signIn(access.settings, access.context, access.key, [scope]);
      try {
        await alone.authorization();
        return { what: shortScope(scope), ok: true, detail: 'granted' };
      } catch {
        return { what: shortScope(scope), ok: false, detail: 'not granted by the domain-wide delegation' };
      } finally {
        await alone.close?.();
      }
    }),
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
