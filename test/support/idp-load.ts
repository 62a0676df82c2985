import { Pool } from 'undici';

/**
 * An IdP pushing SCIM creates (POST /scim/v2/Users) from several concurrent clients, as Entra ID or
 * Okta do: each client creates its next user once the previous one is settled; a 503 is sent
 * again after its Retry-After (capped, to keep tests short); a 409 for a create sent again after a
 * 503 means the first attempt was stored after all (the IdP then adopts the existing user). Every
 * answer is recorded, so a test can say what the bridge acknowledged and how it answered.
 */
export interface Answer {
  /** HTTP status, or 0 when no answer came within the request timeout (a hang) or the connection failed. */
  status: number;
  retryAfter: string | undefined;
  /** When it came (Date.now()). */
  at: number;
}

export interface IdpLoad {
  /** userName → the bridge's id, for every create answered 201. */
  readonly acknowledged: Map<string, string>;
  /** userNames whose create was refused with 503 and then found stored (409 on the retry). */
  readonly storedAfterAll: Set<string>;
  readonly answers: readonly Answer[];
  /** Stops sending (each client finishes its request in flight) and resolves when all are done. */
  stop(): Promise<void>;
}

export interface IdpLoadOptions {
  url: string;
  token: string;
  clients: number;
  /** userNames are `<label>-<n>@example.com`. */
  label: string;
  /** Longest wait honoured from Retry-After. */
  maxRetryAfterMs?: number;
  /** Aborts a request that has no answer after this long: recorded as status 0. */
  requestTimeoutMs?: number;
}

export function startIdpLoad(options: IdpLoadOptions): IdpLoad {
  const timeout = options.requestTimeoutMs ?? 10_000;
  const pool = new Pool(options.url, {
    connections: options.clients,
    headersTimeout: timeout,
    bodyTimeout: timeout,
  });
  const acknowledged = new Map<string, string>();
  const storedAfterAll = new Set<string>();
  const answers: Answer[] = [];
  let next = 0;
  let stopping = false;

  const send = async (userName: string): Promise<Answer & { id?: string }> => {
    try {
      const response = await pool.request({
        method: 'POST',
        path: '/scim/v2/Users',
        headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/scim+json' },
        body: JSON.stringify(userBody(userName)),
      });
      const body = (await response.body.json().catch(() => ({}))) as { id?: string };
      const retryAfter = response.headers['retry-after'];
      return {
        status: response.statusCode,
        retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
        at: Date.now(),
        ...(body.id ? { id: body.id } : {}),
      };
    } catch {
      return { status: 0, retryAfter: undefined, at: Date.now() };
    }
  };

  const client = async () => {
    while (!stopping) {
      const userName = `${options.label}-${next++}@example.com`;
      for (let attempt = 0; ; attempt++) {
        const answer = await send(userName);
        answers.push({ status: answer.status, retryAfter: answer.retryAfter, at: answer.at });
        if (answer.status === 201 && answer.id) acknowledged.set(userName, answer.id);
        if (answer.status === 409 && attempt > 0) storedAfterAll.add(userName);
        if (answer.status !== 503 || stopping) break;
        const wait = Math.min(Number(answer.retryAfter ?? 1) * 1000, options.maxRetryAfterMs ?? 500);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  };
  const running = Promise.all(Array.from({ length: options.clients }, client));
  let stopped: Promise<void> | undefined;
  return {
    acknowledged,
    storedAfterAll,
    answers,
    stop: () => {
      stopping = true;
      stopped ??= running.then(() => pool.close());
      return stopped;
    },
  };
}

function userBody(userName: string) {
  const [local] = userName.split('@');
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    userName,
    active: true,
    name: { givenName: 'Load', familyName: local },
    emails: [{ value: userName, type: 'work', primary: true }],
  };
}
