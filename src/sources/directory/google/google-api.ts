import { ApiClient } from '../../../api-client/api-client.js';
import type { Answer } from '../../../api-client/answer.js';
import type { AuthStrategy } from '../../../api-client/auth/auth-strategy.js';
import { googleServiceAccountAuth } from '../../../api-client/auth/google-service-account.js';
import { RequestBudget } from '../../../api-client/request-budget.js';
import type { RetryPolicy } from '../../../api-client/retry-policy.js';
import { BridgeError } from '../../../domain/errors.js';
import { fileSecret } from '../../../ops/secret-file.js';
import type { SourceContext } from '../../source-kind.js';
import { googleRules } from './google-refusals.js';
import type { GoogleSettings } from './google.settings.js';

/**
 * How the `google` source reaches Google: a service account's key with domain-wide delegation,
 * signed in through the API client room (api-client/auth/google-service-account.ts) for the
 * read-only scopes, acting for GOOGLE_ADMIN_SUBJECT; the Admin SDK's Directory and Reports APIs
 * under GOOGLE_API_URL. Every read of one directory (the full read, its change reads, previews, a
 * provision on demand) shares one budget of requests per minute, since Google counts its quota per
 * project and impersonated user (Directory API, "Limits and quotas": 2,400 queries a minute). Each
 * read opens its own connections (GoogleApi) and closes them.
 */

const AUTH = 'https://www.googleapis.com/auth/';

/** The read-only scopes asked for (SPEC §5.5), by what they let the source read. */
export const SCOPES = {
  users: `${AUTH}admin.directory.user.readonly`,
  groups: `${AUTH}admin.directory.group.readonly`,
  members: `${AUTH}admin.directory.group.member.readonly`,
  audit: `${AUTH}admin.reports.audit.readonly`,
} as const;

export const ALL_SCOPES: readonly string[] = Object.values(SCOPES);

export const DIRECTORY = 'admin/directory/v1';
export const REPORTS = 'admin/reports/v1/activity/users/all/applications';

export interface GoogleAccess {
  readonly settings: GoogleSettings;
  readonly context: SourceContext;
  /** The key file's JSON as it is now. */
  readonly key: () => string;
  readonly auth: AuthStrategy;
  readonly budget: RequestBudget;
  /** What a watermark was read from: the customer and the administrator acted for. */
  readonly origin: string;
  /** The source as messages name it. */
  readonly label: string;
}

const budgets = new WeakMap<object, RequestBudget>();

/**
 * The directory's access to Google. Each built source has its own sign-in (a token is cheap to
 * get); the budget is one per directory's settings, shared by every read of it.
 */
export function googleAccess(settings: GoogleSettings, context: SourceContext): GoogleAccess {
  const budget = budgets.get(settings) ?? new RequestBudget(settings.requestsPerMinute);
  budgets.set(settings, budget);
  const key = liveKey(settings, context);
  return {
    settings,
    context,
    key,
    auth: signIn(settings, context, key, ALL_SCOPES),
    budget,
    origin: `${settings.customer}|${settings.adminSubject.toLowerCase()}`,
    label: `Google Workspace (customer ${settings.customer}, as ${settings.adminSubject})`,
  };
}

/** A sign-in for these scopes (check-config signs in for each scope alone, to say which is refused). */
export function signIn(
  settings: GoogleSettings,
  context: SourceContext,
  key: () => string,
  scopes: readonly string[],
): AuthStrategy {
  return googleServiceAccountAuth({
    key,
    scopes,
    subject: settings.adminSubject,
    input: context.owner,
    explainRefusal: googleRules(scopes).explainRefusal,
    ...(context.metrics ? { metrics: context.metrics } : {}),
    ...(context.timeoutMs ? { timeoutMs: context.timeoutMs } : {}),
  });
}

/** The key as it is now: re-read from its file when that changes; a file that is not a key keeps the last. */
function liveKey(settings: GoogleSettings, context: SourceContext): () => string {
  const current = context.secret('serviceAccount');
  const path = (settings as { serviceAccountFile?: unknown }).serviceAccountFile;
  if (typeof path !== 'string' || path === '') return current;
  const onRefused = (problem: string) =>
    context.logger?.warn(
      { input: context.owner },
      `${path}: new contents not used (the service account key ${problem})`,
    );
  return fileSecret(path, current(), { problem: keyProblem, onRefused });
}

/** Why a text is not a service account's JSON key (named by its fields, never its values). */
export function keyProblem(text: string): string | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return 'is not JSON';
  }
  if (typeof json !== 'object' || json === null) return 'is not a JSON object';
  const missing = ['client_email', 'private_key'].filter(
    (field) => typeof (json as Record<string, unknown>)[field] !== 'string',
  );
  return missing.length === 0 ? undefined : `has no ${missing.join(' and no ')}`;
}

/** Retries of a request to Google: its limits page's back-off (1 s, 2 s, 4 s … plus jitter). */
function retryOf(settings: GoogleSettings): Partial<RetryPolicy> {
  return {
    maxAttempts: settings.retryAttempts,
    baseDelayMs: settings.backoffBaseMs,
    maxDelayMs: Math.max(settings.backoffBaseMs, 32_000),
    throttleBackoff: true,
    defaultThrottleWaitMs: settings.backoffBaseMs,
    throttleWaits: 10,
    maxTotalWaitMs: 5 * 60_000,
  };
}

/** One read's connections to the Admin SDK, and the requests it makes. */
export class GoogleApi {
  private readonly client: ApiClient;

  constructor(readonly access: GoogleAccess) {
    const { settings, context } = access;
    const { auth } = access;
    this.client = new ApiClient({
      label: `Google's Admin SDK at ${new URL(settings.apiUrl).origin}`,
      input: context.owner,
      baseUrl: settings.apiUrl,
      // The sign-in outlives the read: the read's client does not close it.
      auth: {
        authorization: (signal) => auth.authorization(signal),
        refused: (given) => auth.refused(given),
      },
      connections: settings.concurrency,
      retry: retryOf(settings),
      vendor: googleRules(ALL_SCOPES),
      budget: access.budget,
      ...(context.metrics ? { metrics: context.metrics } : {}),
      ...(context.timeoutMs ? { timeoutMs: context.timeoutMs } : {}),
    });
  }

  get label(): string {
    return this.client.label;
  }

  /** The URL of a path under the API root with these parameters. */
  url(path: string, params: Readonly<Record<string, string | undefined>> = {}): URL {
    const url = this.client.url(path);
    for (const [name, value] of Object.entries(params))
      if (value !== undefined) url.searchParams.set(name, value);
    return url;
  }

  get(url: URL, signal?: AbortSignal): Promise<Answer> {
    return this.client.getJson(url, signal ? { signal } : {});
  }

  /** GET, or undefined when Google answers 404 (gone, or never there). */
  find(url: URL, signal?: AbortSignal): Promise<Answer | undefined> {
    return this.client.findJson(url, signal ? { signal } : {});
  }

  /** A 2xx answer that is not the JSON object asked for. */
  invalid(url: URL, reason: string): BridgeError {
    return new BridgeError('source_invalid', `${this.label} ${url.pathname}: ${reason}`);
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** The path of a user or group by its key (an id or an address). */
export function entityPath(kind: 'users' | 'groups', key: string, rest = ''): string {
  return `${DIRECTORY}/${kind}/${encodeURIComponent(key)}${rest}`;
}
