import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { READ_ONLY_SCOPES } from './google-access.js';
import { activityJson, AuditLog, type Application } from './google-audit-log.js';
import { GoogleClock } from './google-clock.js';
import { Faults, type FaultRate, type ScriptedFault } from './google-faults.js';
import { GroupControl } from './google-group-control.js';
import { WorkspaceModel, type GroupRecord, type MemberRecord, type UserRecord } from './google-model.js';
import { PageTokens } from './google-paging.js';
import { QuotaMeter, type Observed } from './google-quota.js';
import { Recorder } from './google-recorder.js';
import { serve, type Frontend, type RecordedRequest } from './google-http.js';
import {
  seedGroup,
  seedMember,
  seedUser,
  type GroupInput,
  type MemberInput,
  type UserInput,
} from './google-seed.js';
import { ServiceAccounts, signJwt, type ServiceAccountKey } from './google-service-accounts.js';
import { JWT_BEARER, TokenEndpoint } from './google-token-endpoint.js';
import { UserControl } from './google-user-control.js';

export type { RecordedRequest };

/** The audience Google's own token endpoint expects (accepted besides the emulator's URL). */
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

export interface GoogleWorkspaceOptions {
  /** Primary domain (default example.com) and further domains of the customer. */
  domain?: string;
  secondaryDomains?: string[];
  customerId?: string;
  /** The super administrator impersonated by default (created; default admin@<domain>). */
  adminEmail?: string;
  /** Scopes granted to the default service account's domain-wide delegation. */
  delegatedScopes?: string[];
  tokenLifetimeSeconds?: number;
  quotaPerMinute?: number;
  /** Visibility lag of audit records, drawn per record between the bounds (ms). */
  lag?: { minMs: number; maxMs: number };
  seed?: number;
  /** Where Google's clock starts (ms since the epoch; default now). */
  clockStart?: number;
}

export class GoogleWorkspace {
  readonly clock: GoogleClock;
  readonly model: WorkspaceModel;
  readonly log: AuditLog;
  readonly accounts: ServiceAccounts;
  readonly users: UserControl;
  readonly groups: GroupControl;
  readonly faults = new Faults();
  readonly quota = new QuotaMeter();
  readonly serviceAccount: ServiceAccountKey;
  readonly tokenUrl: string;
  readonly adminEmail: string;
  private readonly tokenEndpoint: TokenEndpoint;
  private readonly recorded: RecordedRequest[] = [];
  private readonly frontend: Frontend;

  private constructor(
    readonly url: string,
    private readonly server: Server,
    options: GoogleWorkspaceOptions,
  ) {
    const domain = (options.domain ?? 'example.com').toLowerCase();
    const customerId = options.customerId ?? `C0${randomBytes(4).toString('hex').slice(0, 7)}`;
    this.clock = new GoogleClock(options.clockStart);
    this.model = new WorkspaceModel(customerId, [
      domain,
      ...(options.secondaryDomains ?? []).map((d) => d.toLowerCase()),
    ]);
    this.log = new AuditLog(this.clock, customerId, domain, options.seed ?? 1);
    if (options.lag) this.log.lag = { ...options.lag };
    this.tokenUrl = `${url}/token`;
    this.accounts = new ServiceAccounts(this.tokenUrl);
    this.adminEmail = options.adminEmail ?? `admin@${domain}`;
    seedUser(
      this.model,
      { primaryEmail: this.adminEmail, givenName: 'Workspace', familyName: 'Admin', isAdmin: true },
      this.clock.now(),
    );
    const recorder = new Recorder(this.model, this.log, this.adminEmail);
    this.users = new UserControl(this.model, recorder, this.clock);
    this.groups = new GroupControl(this.model, recorder);
    this.tokenEndpoint = new TokenEndpoint(
      this.accounts,
      this.clock,
      [this.tokenUrl, GOOGLE_TOKEN_URL],
      (email) => {
        const user = this.model.user(email);
        return user && !user.suspended ? { id: user.id, email: user.primaryEmail } : undefined;
      },
    );
    if (options.tokenLifetimeSeconds !== undefined)
      this.tokenEndpoint.lifetimeSeconds = options.tokenLifetimeSeconds;
    if (options.quotaPerMinute !== undefined) this.quota.perMinute = options.quotaPerMinute;
    const { clock, model, log, tokenEndpoint, faults, quota, recorded } = this;
    this.frontend = {
      base: url,
      clock,
      model,
      log,
      tokenEndpoint,
      pageTokens: new PageTokens(clock),
      faults,
      quota,
      recorded,
    };
    this.serviceAccount = this.accounts.create({
      delegatedScopes: options.delegatedScopes ?? READ_ONLY_SCOPES,
    });
  }

  static async start(options: GoogleWorkspaceOptions = {}): Promise<GoogleWorkspace> {
    const server = createServer((req, res) => void serve(workspace.frontend, req, res));
    // Long-lived connections, as Google's front end keeps them: a reader idle for a few seconds
    // (a bench seeding the account) must not find its pooled socket closed under it.
    server.keepAliveTimeout = 120_000;
    server.headersTimeout = 121_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const workspace = new GoogleWorkspace(
      `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      server,
      options,
    );
    return workspace;
  }

  get customerId(): string {
    return this.model.customerId;
  }

  get domain(): string {
    return this.model.domains[0] as string;
  }

  /**
   * State that was always there: no audit record, no refusal of what Google would refuse. The
   * records answered are the stored ones (read them; change them through `users` and `groups`).
   */
  readonly seed = {
    user: (input: UserInput): Readonly<UserRecord> => seedUser(this.model, input, this.clock.now()),
    group: (input: GroupInput): Readonly<GroupRecord> => seedGroup(this.model, input),
    member: (groupKey: string, input: MemberInput): Readonly<MemberRecord> =>
      seedMember(this.model, groupKey, input),
    /** A group of another customer, to be nested in ours: its members.list answers 403. */
    foreignGroup: (input: GroupInput): Readonly<GroupRecord> => seedGroup(this.model, input, true),
  };

  /** The key file's text, as a client reads it from disk. */
  keyFile(key: ServiceAccountKey = this.serviceAccount): string {
    return JSON.stringify(key, null, 2);
  }

  /** A signed assertion as a client makes one (defaults: the admin as `sub`, read-only scopes, an hour). */
  assertion(claims: Record<string, unknown> = {}, key: ServiceAccountKey = this.serviceAccount): string {
    const iat = Math.floor(Date.now() / 1000);
    const base = {
      iss: key.client_email,
      scope: READ_ONLY_SCOPES.join(' '),
      aud: this.tokenUrl,
      iat,
      exp: iat + 3600,
      sub: this.adminEmail,
    };
    return signJwt({ ...base, ...claims }, key.private_key, key.private_key_id);
  }

  /** The token request's form for an assertion. */
  tokenForm(assertion: string): URLSearchParams {
    return new URLSearchParams({ grant_type: JWT_BEARER, assertion });
  }

  setTokenLifetime(seconds: number): void {
    this.tokenEndpoint.lifetimeSeconds = seconds;
  }

  /** Every access token issued so far stops working (the next call answers 401). */
  expireAccessTokens(): void {
    this.tokenEndpoint.expireAll();
  }

  setLag(minMs: number, maxMs = minMs): void {
    this.log.lag = { minMs, maxMs };
  }

  /** The audit records kept (visible or not yet, dropped ones too) as the API would show them. */
  activities(application?: Application): Record<string, unknown>[] {
    return this.log
      .all()
      .filter((a) => !application || a.applicationName === application)
      .map((a) => activityJson(this.log, a));
  }

  fault(fault: ScriptedFault): void {
    this.faults.script(fault);
  }

  faultRate(fault: FaultRate): void {
    this.faults.rate(fault);
  }

  observed(): Observed {
    return this.quota.observed();
  }

  requests(): RecordedRequest[] {
    return [...this.recorded];
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}
