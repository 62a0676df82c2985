import type { z } from 'zod';
import { ErrorBody } from './schemas/shapes.js';
import { SyncParams, SyncView } from './schemas/sync.schema.js';

/** One operation of the admin API as openapi-paths.ts lists it, and the answers most share. */

export interface Answer {
  description: string;
  /** The answer's body and its media type (JSON unless said otherwise). */
  body?: z.ZodType;
  type?: string;
}

export interface AdminOperation {
  method: 'get' | 'post';
  /** As OpenAPI writes it: /admin/sync/{jobId}. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** Request bodies by media type. */
  body?: { required: boolean; content: Record<string, z.ZodType> };
  answers: Record<string, Answer>;
}

export const ok = (description: string, body: z.ZodType): Answer => ({ description, body });
export const error = (description: string): Answer => ({ description, body: ErrorBody });
/** The answers every admin route may give before its own: no token, no Redis. */
export const guarded = {
  '401': error('Missing or wrong admin token'),
  '503': error('Redis is unavailable'),
};
export const noSync = error('No such sync (also any id that is not a sync id)');

export const syncAction = (operationId: string, path: string, summary: string): AdminOperation => ({
  method: 'post',
  path,
  operationId,
  summary,
  params: SyncParams,
  answers: {
    '202': ok('The sync', SyncView),
    '404': noSync,
    '409': error('The sync is not in a state that allows this'),
    ...guarded,
  },
});
