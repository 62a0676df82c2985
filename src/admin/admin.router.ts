import { Router } from 'express';
import { BridgeError } from '../domain/errors.js';
import { bearerAuth } from '../http/auth.js';

/**
 * /admin: every route behind the admin bearer token (constant-time); disabled (404) without one.
 * Sub-routers bring their own body parsing (the sync route takes large snapshots).
 */
export function adminRouter(token: () => string, routers: readonly Router[]): Router {
  const router = Router();
  router.use((_req, _res, next) => {
    if (token() === '')
      return next(new BridgeError('not_enabled', 'The admin API is not enabled: set ADMIN_TOKEN'));
    next();
  });
  router.use(bearerAuth({ token, realm: 'scim-bridge admin' }));
  for (const sub of routers) router.use(sub);
  return router;
}
