import express, { type Express } from 'express';
import { controlRouter, type ControlParts } from './control-router.js';
import { scimPipeline, type PipelineParts } from './scim-pipeline.js';
import { scimRouter, type ScimRouterParts } from './target-router.js';

/** Where the platform serves SCIM, under its tenant base URL (the bridge's TARGET_URL). */
export const SCIM_BASE_PATH = '/api/scim/v2';
export const CONTROL_BASE_PATH = '/__control';

export interface TargetAppParts {
  /** Absent for a control-only listener. */
  scim?: PipelineParts & ScimRouterParts;
  control: ControlParts;
}

export function buildTargetApp(parts: TargetAppParts): Express {
  const app = express();
  app.disable('x-powered-by');
  // ServiceProviderConfig says etag.supported: false (RFC 7643 §5), so no ETag headers either.
  app.set('etag', false);
  if (parts.scim !== undefined) app.use(SCIM_BASE_PATH, scimPipeline(parts.scim), scimRouter(parts.scim));
  app.use(CONTROL_BASE_PATH, controlRouter(parts.control));
  app.use((req, res) => {
    res.status(404).json({ error: { code: 'not_found', message: `Nothing at ${req.path}` } });
  });
  return app;
}
