import type { ProvisionResult } from '../admin/schemas/provision.schema.js';
import type { AdminCommandContext } from './admin-command.js';

export interface ProvisionCommandOptions {
  input?: string;
  dryRun?: boolean;
  /** Seconds an apply waits for the platform to match. */
  wait?: number;
  url?: string;
}

type Steps = ProvisionResult['steps'];

/**
 * `scim-bridge provision <user|group> <key> [--input NAME] [--dry-run]`: provision on demand
 * through the admin API (POST /admin/identities/{kind}/{key}/provision), the steps printed one
 * per line. Exit 0 for a dry run and for an apply that converged or is still under way; 1 when the
 * apply failed, was parked or did not apply (out of scope, unmappable, owned by another input).
 */
export async function provisionCommand(
  { client, write }: AdminCommandContext,
  kind: 'user' | 'group',
  key: string,
  options: ProvisionCommandOptions,
): Promise<number> {
  const path = `/admin/identities/${kind}s/${encodeURIComponent(key)}/provision`;
  const { body } = await client.call<ProvisionResult>('POST', path, {
    ...(options.input === undefined ? {} : { input: options.input }),
    dryRun: options.dryRun === true,
    ...(options.wait === undefined ? {} : { waitSeconds: options.wait }),
  });
  write(formatProvision(body));
  const state = body.steps.applied?.state;
  return state === 'failed' || state === 'parked' || state === 'not-applied' ? 1 : 0;
}

export function formatProvision(result: ProvisionResult): string {
  const { steps } = result;
  const title = `Provision ${result.kind} ${result.key} from ${result.input}${result.dryRun ? ' (dry run: nothing written)' : ''}`;
  return [
    title,
    step('read', `found ${steps.read.label} (id ${steps.read.id}) in ${steps.read.source}`),
    step(
      'scope',
      `${steps.scope.outcome}: ${steps.scope.reason}`,
      steps.scope.expression ? [steps.scope.expression] : [],
    ),
    ...mappingLines(steps.mapping),
    ...(steps.members ? membersLines(steps.members) : []),
    step('match', matchText(steps.match)),
    ...actionLines(steps.action),
    ...(steps.applied ? appliedLines(steps.applied) : []),
  ].join('\n');
}

function step(label: string, text: string, details: readonly string[] = []): string {
  return [`  ${label.padEnd(8)}  ${text}`, ...details.map((d) => `              ${d}`)].join('\n');
}

const shown = (value: unknown) => JSON.stringify(value ?? null);

function mappingLines(mapping: Steps['mapping']): string[] {
  const computed = mapping.expressions.map((e) => `${e.attribute} ← ${e.expression} (${e.setting})`);
  if (mapping.outcome !== 'mapped')
    return [step('mapping', `${mapping.outcome}: ${mapping.reason ?? ''}`, computed)];
  const attributes = Object.entries(mapping.identity ?? {}).map(([name, value]) => `${name} ${shown(value)}`);
  return [step('mapping', `mapped: ${attributes.join(', ')}`, computed)];
}

function membersLines(members: NonNullable<Steps['members']>): string[] {
  const counts = `${members.total} (${members.inScope} in scope, ${members.outOfScope} out of scope, ${members.unmappable} unmappable)`;
  const items = members.items.map(
    (m) =>
      `${m.userName ?? m.label} (${m.id}): ${m.outcome}${m.reason ? `: ${m.reason}` : ''}${m.targetId ? `, platform id ${m.targetId}` : ''}`,
  );
  const more = members.total > items.length ? [`… and ${members.total - items.length} more`] : [];
  return [step('members', counts, [...items, ...more])];
}

function matchText(match: Steps['match']): string {
  const found = match.targetId ? ` platform id ${match.targetId}${match.by ? ` by ${match.by}` : ''}` : '';
  const managed = match.targetId
    ? match.managed
      ? ', managed by the bridge'
      : ', not managed by the bridge yet'
    : '';
  return `${match.outcome}${found}${managed}: ${match.reason}`;
}

function actionLines(action: Steps['action']): string[] {
  const changes = (action.changes ?? []).map((c) => `${c.attribute}: ${shown(c.before)} → ${shown(c.after)}`);
  const m = action.members;
  const members = m
    ? [`members: ${m.add} to add, ${m.remove} to remove, ${m.provisionFirst} to provision first`]
    : [];
  return [step('action', `${action.action}: ${action.reason}`, [...changes, ...members])];
}

function appliedLines(applied: NonNullable<Steps['applied']>): string[] {
  const items = applied.identities.map(
    (i) =>
      `${i.kind} ${i.id}: ${i.write}${i.result ? `, ${i.result}` : ''}${i.targetId ? `, platform id ${i.targetId}` : ''}${i.error ? ` (${i.error.code}: ${i.error.message})` : ''}`,
  );
  const more = applied.total > items.length ? [`… and ${applied.total - items.length} more`] : [];
  return [step('applied', `${applied.state}: ${applied.reason}`, [...items, ...more])];
}
