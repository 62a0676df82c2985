import { createHash } from 'node:crypto';
import { z } from 'zod';
import { BridgeError } from '../../../domain/errors.js';
import type { Watermark } from '../../../domain/input.js';

/**
 * Where the `entra` source's change reads stand: the delta links of its last users and groups
 * rounds (delta-query-overview.md: "store the deltaLink; later, GET it for changes"), when they
 * were given, and — with ENTRA_ASSIGNED_TO — a digest of the assignments then. The origin names
 * the tenant, the app and what the links were asked for (Graph's origin, the `$select` lists, the
 * scope): links asked for other settings answer other questions, so they are not trusted.
 * Directory delta tokens last about 7 days (`syncStateNotFound` after); a link older than 6 days
 * is not followed: the input is read in full instead (SPEC §5.4).
 */

export const WATERMARK_KIND = 'entra-delta';
export const MAX_LINK_AGE_MS = 6 * 24 * 3600 * 1000;

const valueSchema = z.object({
  users: z.string().min(1),
  groups: z.string().min(1),
  at: z.number(),
  assigned: z.string().optional(),
});

export type DeltaPosition = z.output<typeof valueSchema>;

export interface OriginSettings {
  tenantId: string;
  clientId: string;
  graphUrl: string;
  assignedTo: string;
  userSelect: readonly string[];
  groupSelect: readonly string[];
}

export function originOf(settings: OriginSettings): string {
  const asked = JSON.stringify([
    new URL(settings.graphUrl).origin,
    settings.userSelect,
    settings.groupSelect,
    settings.assignedTo.toLowerCase(),
  ]);
  const digest = createHash('sha256').update(asked).digest('base64url').slice(0, 16);
  return `${settings.tenantId.toLowerCase()}/${settings.clientId.toLowerCase()}/${digest}`;
}

export function toWatermark(position: DeltaPosition, origin: string): Watermark {
  return { kind: WATERMARK_KIND, value: JSON.stringify(position), origin };
}

/** The position a watermark holds, or `watermark_untrusted` saying why it cannot be followed. */
export function positionOf(watermark: Watermark, origin: string, now: number): DeltaPosition {
  if (watermark.kind !== WATERMARK_KIND) throw untrusted(`it is a ${watermark.kind} watermark`);
  if (watermark.origin !== origin)
    throw untrusted('it was taken for another tenant, app, Graph origin, selection or scope');
  let parsed: unknown;
  try {
    parsed = JSON.parse(watermark.value);
  } catch {
    throw untrusted('its value is not the delta links it should hold');
  }
  const position = valueSchema.safeParse(parsed);
  if (!position.success) throw untrusted('its value is not the delta links it should hold');
  if (now - position.data.at > MAX_LINK_AGE_MS)
    throw untrusted('its delta links are more than 6 days old (Microsoft Graph keeps them about 7)');
  return position.data;
}

export function untrusted(why: string): BridgeError {
  return new BridgeError(
    'watermark_untrusted',
    `The Entra delta links cannot be followed: ${why}; the input is read in full`,
  );
}
