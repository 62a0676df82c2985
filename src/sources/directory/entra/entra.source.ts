import type { Snapshot } from '../../../domain/identity.js';
import type { ReadOne } from '../../../domain/source-identity.js';
import type { SnapshotSink } from '../../../domain/snapshot-sink.js';
import type { SourceContext } from '../../source-kind.js';
import { collectSnapshot } from '../collect-snapshot.js';
import type { DirectorySource, ReadOptions, SourceCheck } from '../directory-source.js';
import { checkEntra } from './entra-check.js';
import { entraCredential } from './entra-credential.js';
import { streamEntra, type ReadPlan } from './entra-full-read.js';
import { GROUP_SELECT, userSelect } from './entra-items.js';
import { entraReadOne } from './entra-read-one.js';
import { originOf } from './entra-watermark.js';
import type { EntraSettings } from './entra.settings.js';
import { GraphSession, graphSignIn } from './graph-session.js';
import type { AuthStrategy } from '../../../api-client/auth/auth-strategy.js';

/**
 * The `entra` directory source (SPEC §5.5): a Microsoft Entra ID tenant read through Microsoft
 * Graph with app-only permissions — in full (entra-full-read.ts), one identity at a time
 * (entra-read-one.ts), and for check-config (entra-check.ts). Its change read is entra-delta.ts.
 */
export class EntraDirectorySource implements DirectorySource {
  readonly readOne: ReadOne;
  private readonly plan: ReadPlan;

  constructor(
    private readonly settings: EntraSettings,
    private readonly context: SourceContext,
    private readonly open: () => GraphSession,
  ) {
    this.plan = {
      userSelect: userSelect(settings.userAttributes),
      pageSize: settings.pageSize,
      assignedTo: settings.assignedTo,
    };
    this.readOne = entraReadOne(open, {
      userSelect: this.plan.userSelect,
      assignedTo: settings.assignedTo,
      membership: context.policies.some((policy) => policy.users.readsMembership),
    });
  }

  get label(): string {
    return `The Entra ID tenant ${this.settings.tenantId} (Microsoft Graph at ${new URL(this.settings.graphUrl).origin})`;
  }

  read(options: ReadOptions = {}): Promise<Snapshot> {
    return collectSnapshot(this, options);
  }

  async stream(sink: SnapshotSink, options: ReadOptions = {}): Promise<void> {
    const graph = this.open();
    try {
      await streamEntra(graph, sink, options, this.plan, this.context.logger);
    } finally {
      await graph.close();
    }
  }

  async check(options: ReadOptions = {}): Promise<SourceCheck[]> {
    const graph = this.open();
    try {
      return await checkEntra(graph, this.settings.assignedTo, options);
    } finally {
      await graph.close();
    }
  }
}

const DEFAULT_TIMEOUT_S = 30;
/** One sign-in (token cache) per configured directory, shared by the sources built for it. */
const signIns = new WeakMap<EntraSettings, AuthStrategy>();

/** How the source's reads connect: a Graph session per read, on the directory's one sign-in. */
export function graphOpener(settings: EntraSettings, context: SourceContext): () => GraphSession {
  const timeoutMs = context.timeoutMs ?? (settings.timeoutSeconds || DEFAULT_TIMEOUT_S) * 1000;
  const metrics = context.metrics ? { metrics: context.metrics } : {};
  let signIn = signIns.get(settings);
  if (!signIn) {
    const credential = entraCredential(settings, context.secret('clientSecret'), context);
    signIn = graphSignIn({ ...settings, credential, timeoutMs, input: context.owner, ...metrics });
    signIns.set(settings, signIn);
  }
  const shared = signIn;
  return () =>
    new GraphSession({
      signIn: shared,
      graphUrl: settings.graphUrl,
      concurrency: settings.concurrency,
      timeoutMs,
      input: context.owner,
      ...metrics,
    });
}

/** What the change reads ask Graph for, and the origin their watermark names. */
export function deltaPlanOf(settings: EntraSettings) {
  const users = userSelect(settings.userAttributes);
  return {
    userSelect: users,
    groupSelect: GROUP_SELECT,
    assignedTo: settings.assignedTo,
    concurrency: settings.concurrency,
    origin: originOf({ ...settings, userSelect: users, groupSelect: GROUP_SELECT }),
  };
}
