import { z } from 'zod';
import {
  groupRuleProblems,
  identityIdProblem,
  userRuleProblems,
  type RuleProblem,
} from '../../domain/platform-rules.js';

/**
 * Generic signed events (SPEC §5.2): `{"id", "type", "data"}`, one per body or up to 1,000 as
 * `{"events": [...]}`. Data shapes follow the directory snapshot (SPEC §5.4). Unknown attributes
 * are ignored, so a sender may carry more than the bridge manages.
 */

export const MAX_EVENTS_PER_BATCH = 1000;

const text = (max: number) =>
  z.string().regex(/\S/, 'must not be empty or blank').max(max, `longer than ${max} characters`);
/** An identity id: the store keys on it, so the store's rule applies here, before any merge. */
const identifier = text(1024).refine(
  (v) => v === '' || identityIdProblem(v) === undefined,
  'must not hold control characters',
);

/** The platform's rules (domain/platform-rules.ts), checked once the shape holds. */
const platformRules = <T>(problems: (value: T) => RuleProblem[]) =>
  z.superRefine<T>(
    (value, ctx) => {
      for (const p of problems(value)) ctx.addIssue({ code: 'custom', path: [...p.path], message: p.reason });
    },
    { when: (payload) => payload.issues.length === 0 },
  );

export const directoryUserSchema = z
  .object({
    id: identifier,
    externalId: text(1024).optional(),
    userName: text(1024),
    name: z.object({ givenName: z.string().optional(), familyName: z.string().optional() }).optional(),
    emails: z
      .array(z.object({ value: text(1024), primary: z.boolean().optional(), type: z.string().optional() }))
      .optional(),
    active: z.boolean().default(true),
  })
  .check(platformRules(userRuleProblems));

export const directoryGroupSchema = z
  .object({
    id: identifier,
    externalId: text(1024).optional(),
    displayName: text(1024),
    members: z.array(identifier).optional(),
  })
  .check(platformRules(groupRuleProblems));

const idOnly = z.object({ id: identifier });
const memberChange = z.object({ id: identifier, members: z.array(identifier).min(1, 'must not be empty') });

const DATA_SCHEMAS = {
  'user.upserted': directoryUserSchema,
  'user.deleted': idOnly,
  'group.upserted': directoryGroupSchema,
  'group.deleted': idOnly,
  'group.members.added': memberChange,
  'group.members.removed': memberChange,
} as const;

export type GenericEventType = keyof typeof DATA_SCHEMAS;
export const GENERIC_EVENT_TYPES = Object.keys(DATA_SCHEMAS) as GenericEventType[];

export type GenericEvent = {
  [T in GenericEventType]: { id: string; type: T; data: z.output<(typeof DATA_SCHEMAS)[T]> };
}[GenericEventType];

const envelope = z.object({ id: text(256), type: z.string(), data: z.unknown() });

export type BatchParse = { ok: true; events: GenericEvent[] } | { ok: false; problems: string[] };

/**
 * Validates a parsed body: every event is checked, and each problem names the event (index and id),
 * the path inside it and the reason, so that a sender can fix the whole batch at once.
 */
export function parseEventBatch(body: unknown): BatchParse {
  const batch = isBatch(body);
  if (batch === 'invalid') return { ok: false, problems: ['events: must be an array of events'] };
  const items = batch ? batch : [body];
  if (items.length > MAX_EVENTS_PER_BATCH) {
    return { ok: false, problems: [`events: at most ${MAX_EVENTS_PER_BATCH} events per request`] };
  }
  const events: GenericEvent[] = [];
  const problems: string[] = [];
  items.forEach((item, index) => {
    const label = batch ? `events[${index}]` : 'event';
    const parsed = parseEvent(item);
    if (parsed.ok) events.push(parsed.event);
    else problems.push(...parsed.problems.map((p) => `${label}${idLabel(item)} ${p}`));
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, events };
}

function isBatch(body: unknown): unknown[] | false | 'invalid' {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !('events' in body)) return false;
  return Array.isArray(body.events) ? (body.events as unknown[]) : 'invalid';
}

function parseEvent(item: unknown): { ok: true; event: GenericEvent } | { ok: false; problems: string[] } {
  const head = envelope.safeParse(item);
  if (!head.success) return { ok: false, problems: head.error.issues.map((issue) => describeIssue(issue)) };
  const { id, type } = head.data;
  if (!isEventType(type)) {
    return { ok: false, problems: [`type: unknown event type (expected ${GENERIC_EVENT_TYPES.join(', ')})`] };
  }
  const data = DATA_SCHEMAS[type].safeParse(head.data.data);
  if (!data.success) {
    return { ok: false, problems: data.error.issues.map((issue) => describeIssue(issue, 'data')) };
  }
  return { ok: true, event: { id, type, data: data.data } as GenericEvent };
}

function isEventType(type: string): type is GenericEventType {
  return Object.hasOwn(DATA_SCHEMAS, type);
}

function idLabel(item: unknown): string {
  if (typeof item !== 'object' || item === null || !('id' in item)) return '';
  return typeof item.id === 'string' ? ` (id ${JSON.stringify(item.id.slice(0, 256))})` : '';
}

function describeIssue(issue: z.core.$ZodIssue, root?: string): string {
  const path = [...(root ? [root] : []), ...issue.path.map(String)]
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('');
  return `${path || '(event)'}: ${issue.message}`;
}
