import { isBridgeError } from '../domain/errors.js';
import { BridgeError } from '../domain/errors.js';
import type { IdentityKind } from '../domain/identity.js';
import { formatFilterString } from '../domain/scim-filter.js';
import type { RequestTrace, ScimHttp } from './scim-http.js';
import type { ObservedGroup } from '../domain/group-diff.js';
import type { ObservedUser } from '../domain/user-diff.js';
import {
  listResponseSchema,
  readListedGroup,
  readListedUser,
  parseServiceProviderConfig,
  targetGroupSchema,
  targetUserSchema,
  type ScimPatchOperation,
  type ServiceProviderSettings,
  type TargetGroup,
  type TargetUser,
} from './platform-resources.js';

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

type Resource<K extends IdentityKind> = K extends 'user' ? TargetUser : TargetGroup;
/** A listed resource, reduced to what the bridge compares. */
type Listed<K extends IdentityKind> = K extends 'user' ? ObservedUser : ObservedGroup;

const ENDPOINT = { user: '/Users', group: '/Groups' } as const;
const SCHEMAS = { user: targetUserSchema, group: targetGroupSchema } as const;

/** Builds `attribute eq "value"` with the value escaped as a SCIM string literal (RFC 7644 §3.4.2.2). */
export function equalityFilter(attribute: string, value: string): string {
  return `${attribute} eq ${formatFilterString(value)}`;
}

/** The platform's SCIM API for Users and Groups, typed. Every call can carry a trace. */
export class PlatformClient {
  private settings: Promise<ServiceProviderSettings> | undefined;

  constructor(readonly http: ScimHttp) {}

  /** Read once per process (RFC 7643 §5); a failed read is tried again next time. */
  serviceProviderConfig(trace?: RequestTrace): Promise<ServiceProviderSettings> {
    this.settings ??= this.http
      .send('GET', '/ServiceProviderConfig', { route: '/ServiceProviderConfig', trace })
      .then((r) => parseServiceProviderConfig(r.body))
      .catch((error: unknown) => {
        this.settings = undefined;
        throw error;
      });
    return this.settings;
  }

  async get<K extends IdentityKind>(
    kind: K,
    id: string,
    trace?: RequestTrace,
  ): Promise<Resource<K> | undefined> {
    try {
      const path = `${ENDPOINT[kind]}/${encodeURIComponent(id)}`;
      const response = await this.http.send('GET', path, { route: `${ENDPOINT[kind]}/:id`, trace });
      return this.parse(kind, response.body);
    } catch (error) {
      if (isBridgeError(error, 'target_not_found')) return undefined;
      throw error;
    }
  }

  /** Resources matching `attribute eq value`. */
  async findBy<K extends IdentityKind>(
    kind: K,
    attribute: string,
    value: string,
    trace?: RequestTrace,
  ): Promise<Resource<K>[]> {
    const query = `filter=${encodeURIComponent(equalityFilter(attribute, value))}&startIndex=1&count=10`;
    const response = await this.http.send('GET', `${ENDPOINT[kind]}?${query}`, {
      route: ENDPOINT[kind],
      trace,
    });
    const list = this.parseList(kind, response.body);
    return list.resources;
  }

  async create<K extends IdentityKind>(
    kind: K,
    body: Record<string, unknown>,
    trace?: RequestTrace,
  ): Promise<Resource<K>> {
    const schemas = [kind === 'user' ? USER_SCHEMA : GROUP_SCHEMA];
    const response = await this.http.send('POST', ENDPOINT[kind], {
      route: ENDPOINT[kind],
      body: { schemas, ...body },
      trace,
    });
    return this.parse(kind, response.body);
  }

  async replace<K extends IdentityKind>(
    kind: K,
    id: string,
    body: Record<string, unknown>,
    trace?: RequestTrace,
  ): Promise<void> {
    const schemas = [kind === 'user' ? USER_SCHEMA : GROUP_SCHEMA];
    const path = `${ENDPOINT[kind]}/${encodeURIComponent(id)}`;
    await this.http.send('PUT', path, {
      route: `${ENDPOINT[kind]}/:id`,
      body: { schemas, id, ...body },
      trace,
    });
  }

  async patch(
    kind: IdentityKind,
    id: string,
    operations: ScimPatchOperation[],
    trace?: RequestTrace,
  ): Promise<void> {
    const path = `${ENDPOINT[kind]}/${encodeURIComponent(id)}`;
    const body = { schemas: [PATCH_OP], Operations: operations };
    await this.http.send('PATCH', path, { route: `${ENDPOINT[kind]}/:id`, body, trace });
  }

  /** Deletes; a 404 means it is already gone, which is what was wanted. */
  async delete(kind: IdentityKind, id: string, trace?: RequestTrace): Promise<void> {
    try {
      const path = `${ENDPOINT[kind]}/${encodeURIComponent(id)}`;
      await this.http.send('DELETE', path, { route: `${ENDPOINT[kind]}/:id`, trace });
    } catch (error) {
      if (!isBridgeError(error, 'target_not_found')) throw error;
    }
  }

  /** One page of a listing, starting at a 1-based index. */
  async listPage<K extends IdentityKind>(
    kind: K,
    startIndex: number,
    count: number,
    trace?: RequestTrace,
  ): Promise<{ totalResults: number; resources: Listed<K>[] }> {
    const path = `${ENDPOINT[kind]}?startIndex=${startIndex}&count=${count}`;
    const response = await this.http.send('GET', path, { route: ENDPOINT[kind], trace });
    const parsed = listResponseSchema.safeParse(response.body);
    if (!parsed.success)
      throw new BridgeError('target_bad_response', 'The platform returned an unreadable ListResponse');
    const read = (kind === 'user' ? readListedUser : readListedGroup) as (value: unknown) => Listed<K>;
    return { totalResults: parsed.data.totalResults, resources: (parsed.data.Resources ?? []).map(read) };
  }

  private parse<K extends IdentityKind>(kind: K, body: unknown): Resource<K> {
    const parsed = SCHEMAS[kind].safeParse(body);
    if (!parsed.success) {
      throw new BridgeError('target_bad_response', `The platform returned a ${kind} the bridge cannot read`, {
        detail: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
      });
    }
    return parsed.data as Resource<K>;
  }

  private parseList<K extends IdentityKind>(
    kind: K,
    body: unknown,
  ): { totalResults: number; resources: Resource<K>[] } {
    const parsed = listResponseSchema.safeParse(body);
    if (!parsed.success)
      throw new BridgeError('target_bad_response', 'The platform returned an unreadable ListResponse');
    return {
      totalResults: parsed.data.totalResults,
      resources: (parsed.data.Resources ?? []).map((r) => this.parse(kind, r)),
    };
  }
}
