import type { Request } from 'express';
import { badRequest } from './target-errors.js';
import { parseTargetFilter, type TargetFilter } from './target-filter.js';

/**
 * The query parameters of a SCIM list (RFC 7644 §3.4.2): `filter`, `startIndex` (1-based; below 1
 * means 1, §3.4.2.4), `count` (negative means 0; the platform caps it, and `itemsPerPage` tells the
 * client what it got).
 */

export interface ListParameters {
  filter?: TargetFilter;
  startIndex: number;
  count: number;
}

/** One query parameter; given twice is a 400, as its meaning would be ambiguous. */
export function queryParameter(req: Request, name: string): string | undefined {
  const value: unknown = (req.query as Record<string, unknown>)[name];
  if (value === undefined || typeof value === 'string') return value;
  throw badRequest('invalidValue', `The query parameter ${name} must be given once`);
}

export function readListParameters(req: Request, pageCap: number): ListParameters {
  const filterText = queryParameter(req, 'filter');
  const startIndex = Math.max(1, readInteger(req, 'startIndex') ?? 1);
  const count = Math.min(pageCap, Math.max(0, readInteger(req, 'count') ?? pageCap));
  if (filterText === undefined || filterText.trim() === '') return { startIndex, count };
  // parseTargetFilter throws a 400 invalidFilter naming the problem (RFC 7644 §3.4.2.2).
  return { filter: parseTargetFilter(filterText), startIndex, count };
}

function readInteger(req: Request, name: string): number | undefined {
  const text = queryParameter(req, name);
  if (text === undefined || text.trim() === '') return undefined;
  if (!/^\s*-?\d+\s*$/.test(text))
    throw badRequest('invalidValue', `${name} must be an integer, not ${JSON.stringify(text)}`);
  return Number.parseInt(text, 10);
}
