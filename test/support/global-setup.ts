import type { TestProject } from 'vitest/node';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../src/ops/embedded-redis.js';

/**
 * One private redis-server for the whole run, unless REDIS_URL names one to use. Each test file
 * then works under its own key prefix (test/support/redis.ts) and never touches other keys.
 */
let redis: EmbeddedRedis | undefined;

export async function setup(project: TestProject): Promise<void> {
  let url = process.env.REDIS_URL;
  if (!url) {
    redis = await startEmbeddedRedis();
    url = redis.url;
  }
  project.provide('redisUrl', url);
}

export async function teardown(): Promise<void> {
  await redis?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}
