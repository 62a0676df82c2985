import type { DesiredChange } from './desired-change.js';
import { BridgeError } from './errors.js';
import { formatJsonPath, type JsonPath } from './well-formed-text.js';

/**
 * What the platform's SCIM API documents and always refuses (seed document, "SCIM resources"; and
 * RFC 7643 which it follows), checked at the edges — generic events, the bridge's SCIM server,
 * snapshots — so that an input the platform would reject with 400 is refused at once, naming the
 * attribute, instead of being accepted and failing later in reconciliation. The store itself does
 * not apply these rules: what reaches it has passed an edge.
 */

export interface RuleProblem {
  path: JsonPath;
  reason: string;
}

/** The user attributes the rules look at (a directory user, a desired user, a SCIM body's). */
export interface UserForRules {
  userName?: unknown;
  emails?: readonly { value?: unknown; primary?: unknown }[] | null;
}

export interface GroupForRules {
  displayName?: unknown;
  members?: readonly unknown[] | null;
}

/**
 * Users: `userName` is a required, non-empty string (the platform's unique identifier); each e-mail
 * has a non-empty `value`; `primary: true` appears on at most one e-mail (RFC 7643 §2.4: the
 * primary attribute value "true" MUST appear no more than once).
 */
export function userRuleProblems(user: UserForRules): RuleProblem[] {
  const problems: RuleProblem[] = [];
  if (!isText(user.userName)) problems.push({ path: ['userName'], reason: 'required, and not empty' });
  let primaries = 0;
  (user.emails ?? []).forEach((email, index) => {
    if (!isText(email.value))
      problems.push({ path: ['emails', index, 'value'], reason: 'required, and not empty' });
    if (email.primary === true && ++primaries > 1) {
      problems.push({ path: ['emails', index, 'primary'], reason: 'a second primary e-mail' });
    }
  });
  return problems;
}

/** Groups: `displayName` is a required, non-empty string; each member is a non-empty user id. */
export function groupRuleProblems(group: GroupForRules): RuleProblem[] {
  const problems: RuleProblem[] = [];
  if (!isText(group.displayName)) problems.push({ path: ['displayName'], reason: 'required, and not empty' });
  (group.members ?? []).forEach((member, index) => {
    if (!isText(member)) problems.push({ path: ['members', index], reason: 'not a user id' });
  });
  return problems;
}

/**
 * Identity ids are the last part of Redis keys and are joined with line breaks in the membership
 * index, so an id is non-empty and holds no control character.
 */
export function identityIdProblem(id: string): string | undefined {
  if (id === '') return 'empty';
  for (let i = 0; i < id.length; i++) {
    const code = id.charCodeAt(i);
    if (code < 32 || code === 127) return 'holds a control character';
  }
  return undefined;
}

/**
 * Checks the users and groups a batch upserts; throws `invalid_input` (400, SCIM `invalidValue`)
 * naming each attribute the platform would refuse.
 */
export function checkPlatformRules(changes: readonly DesiredChange[]): void {
  const problems = changes.flatMap((change) => {
    if (change.op === 'upsertUser') return userRuleProblems(change.user);
    if (change.op === 'upsertGroup') return groupRuleProblems(change.group);
    return [];
  });
  if (problems.length === 0) return;
  const lines = problems.map((p) => `${formatJsonPath(p.path)}: ${p.reason}`);
  throw new BridgeError('invalid_input', `The platform refuses this: ${lines.join('; ')}`, {
    status: 400,
    scimType: 'invalidValue',
    problems: lines,
  });
}

function isText(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}
