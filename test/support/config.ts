import { loadConfig, type Env } from '../../src/config/load-config.js';
import { CATALOG } from '../../src/sources/registry.js';
import type { Config } from '../../src/config/schema.js';
import { testRedisUrl, uniquePrefix } from './redis.js';

/** A valid configuration for tests: the shared test Redis under a fresh key prefix, plus overrides. */
export function testConfig(overrides: Env = {}): Config {
  return loadConfig(
    {
      REDIS_URL: testRedisUrl(),
      KEY_PREFIX: uniquePrefix(),
      TARGET_URL: 'http://127.0.0.1:9',
      TARGET_TOKEN: 'test-target-token-0001',
      SYNC_SCHEDULE: '',
      LOG_LEVEL: 'silent',
      ...overrides,
    },
    CATALOG,
  );
}
