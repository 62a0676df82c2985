import { z } from 'zod';
import type { DesiredGroup, DesiredUser, Email, PersonName } from './identity.js';
import { userRuleProblems } from './platform-rules.js';

/**
 * The shape of a directory snapshot (SPEC §5.4), as zod checks it one item at a time. Unknown
 * attributes are dropped; `null` counts as absent for optional attributes (exporters often write
 * it); `active` defaults to true and `members` to none. Each failure's message is the reason part
 * of a `path: reason` problem line. Rules that look across items live in snapshot-validator.ts.
 */

type Kind = 'a string' | 'an object' | 'an array' | 'true or false';

/** `required` when the attribute is missing, otherwise what it should have been. */
const expect = (kind: Kind) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? 'required' : `not ${kind}`),
});

const text = () => z.string(expect('a string')).refine((v) => v.trim() !== '', 'empty');
const optionalText = () => text().nullish();

const nameSchema = z.object(
  { givenName: z.string(expect('a string')).nullish(), familyName: z.string(expect('a string')).nullish() },
  expect('an object'),
);

const emailSchema = z.object(
  { value: text(), primary: z.boolean(expect('true or false')).nullish(), type: optionalText() },
  expect('an object'),
);

export const userSchema = z
  .object(
    {
      id: text(),
      userName: text(),
      name: nameSchema.nullish(),
      emails: z.array(emailSchema, expect('an array')).nullish(),
      active: z.boolean(expect('true or false')).optional(),
      externalId: optionalText(),
    },
    expect('an object'),
  )
  // The platform's own rules (platform-rules.ts, shared with the other edges), once the shape holds.
  .superRefine(
    (user, ctx) => {
      for (const problem of userRuleProblems(user)) {
        ctx.addIssue({ code: 'custom', path: [...problem.path], message: problem.reason });
      }
    },
    { when: (payload) => payload.issues.length === 0 },
  )
  .transform((user): DesiredUser => {
    const out: DesiredUser = { id: user.id, userName: user.userName, active: user.active ?? true };
    if (present(user.externalId)) out.externalId = user.externalId;
    const name = toName(user.name);
    if (name !== undefined) out.name = name;
    if (present(user.emails) && user.emails.length > 0) out.emails = user.emails.map(toEmail);
    return out;
  });

export const groupSchema = z
  .object(
    {
      id: text(),
      displayName: text(),
      members: z.array(text(), expect('an array')).nullish(),
      externalId: optionalText(),
    },
    expect('an object'),
  )
  .transform((group): DesiredGroup => {
    // A member listed twice is one membership.
    const out: DesiredGroup = { id: group.id, displayName: group.displayName, members: [] };
    if (present(group.members)) out.members = [...new Set(group.members)];
    if (present(group.externalId)) out.externalId = group.externalId;
    return out;
  });

/** The top level only: each item is parsed on its own, so that one bad item does not hide others. */
export const snapshotShape = z.object(
  {
    users: z.array(z.unknown(), expect('an array')),
    groups: z.array(z.unknown(), expect('an array')),
  },
  expect('an object'),
);

function toName(name: { givenName?: string | null; familyName?: string | null } | null | undefined) {
  if (!present(name)) return undefined;
  const out: PersonName = {};
  if (present(name.givenName)) out.givenName = name.givenName;
  if (present(name.familyName)) out.familyName = name.familyName;
  return Object.keys(out).length > 0 ? out : undefined;
}

function toEmail(email: { value: string; primary?: boolean | null; type?: string | null }): Email {
  const out: Email = { value: email.value };
  if (present(email.type)) out.type = email.type;
  if (present(email.primary)) out.primary = email.primary;
  return out;
}

function present<T>(value: T | null | undefined): value is T {
  return value !== null && value !== undefined;
}
