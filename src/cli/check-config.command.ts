import { stringify } from 'yaml';
import { maskConfig } from '../config/mask-config.js';
import { isBridgeError } from '../domain/errors.js';
import { configFromEnv } from '../main.js';
import { CATALOG } from '../sources/registry.js';
import { failureText } from './cli-error.js';
import { redisLines } from './check-config.redis.js';
import { sourceLines } from './check-config.sources.js';

/** The settings a bridge cannot run without, and the file that may hold them instead. */
const ESSENTIAL_SETTINGS = ['REDIS_URL', 'TARGET_URL', 'TARGET_TOKEN', 'TARGET_TOKEN_FILE', 'CONFIG_FILE'];

/** Said after the problems when none of the essential settings is given: a first run, most likely. */
export const NOTHING_CONFIGURED =
  'nothing is configured: `npm run demo` configures itself; to run a bridge, set REDIS_URL, TARGET_URL ' +
  'and TARGET_TOKEN (or name a CONFIG_FILE; every setting is in config/default.yaml)';

/**
 * `scim-bridge check-config`: the effective configuration with secrets masked (exit 0), or one line
 * per problem (exit 1) — followed, when nothing at all is configured, by where to start. Above the
 * settings, as comments: the Redis topology as it is now and how durable an acknowledged write is,
 * and what each cloud directory's sign-in and permission checks found (exit 1 when one refuses).
 */
export async function checkConfigCommand(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    const config = configFromEnv(env);
    const sources = await sourceLines(config);
    process.stdout.write('# scim-bridge: configuration is valid; effective settings (secrets masked)\n');
    for (const line of await redisLines(config.redis)) process.stdout.write(`# ${line}\n`);
    for (const line of sources.lines) process.stdout.write(`# ${line}\n`);
    process.stdout.write(stringify(maskConfig(config, CATALOG)));
    if (!sources.ok) process.stderr.write("scim-bridge: a directory's checks failed (see above)\n");
    return sources.ok ? 0 : 1;
  } catch (error) {
    if (!isBridgeError(error, 'config_invalid') || !nothingConfigured(env)) throw error;
    process.stderr.write(`${failureText('check-config', error)}\n${NOTHING_CONFIGURED}\n`);
    return 1;
  }
}

function nothingConfigured(env: NodeJS.ProcessEnv): boolean {
  return ESSENTIAL_SETTINGS.every((name) => !env[name]);
}
