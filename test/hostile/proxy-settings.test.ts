import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBridgeError } from '../../src/domain/errors.js';
import { testConfig } from '../support/config.js';
import { fresh, startHostileBridge, USER_SCHEMA, type HostileBridge } from './bridge-fixture.js';

// Real: whole bridges (Redis, HTTP, bull-board, the SCIM server) configured as behind a TLS proxy,
// which supertest plays from 127.0.0.1 by sending the X-Forwarded-* headers a proxy adds.

async function sessionCookie(bridge: HostileBridge, forwarded: Record<string, string> = {}): Promise<string> {
  const res = await bridge.admin('post', '/admin/queues/session').set(forwarded).expect(204);
  return (res.headers['set-cookie'] as unknown as string[])[0] ?? '';
}

async function createUser(bridge: HostileBridge, forwarded: Record<string, string> = {}) {
  const res = await bridge
    .scim('post', '/Users')
    .set(forwarded)
    .set('Content-Type', 'application/scim+json')
    .send(JSON.stringify({ schemas: [USER_SCHEMA], userName: `${fresh('p')}@example.com` }))
    .expect(201);
  return {
    location: res.headers.location as string,
    meta: res.body.meta as { location: string },
    id: res.body.id as string,
  };
}

const HTTPS = { 'X-Forwarded-Proto': 'https' };

describe('without TRUST_PROXY (the default)', () => {
  let bridge: HostileBridge;
  beforeAll(async () => {
    bridge = await startHostileBridge();
  });
  afterAll(async () => {
    await bridge.close();
  });

  it('believes no X-Forwarded-Proto: no Secure cookie, http locations', async () => {
    expect(await sessionCookie(bridge, HTTPS)).not.toMatch(/;\s*Secure/i);
    expect((await createUser(bridge, HTTPS)).location).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/scim\/v2\/Users\//,
    );
  });
});

describe('with TRUST_PROXY naming the proxy', () => {
  let bridge: HostileBridge;
  beforeAll(async () => {
    bridge = await startHostileBridge({ TRUST_PROXY: 'loopback' });
  });
  afterAll(async () => {
    await bridge.close();
  });

  it('marks the session cookie Secure and gives https locations when the proxy says https', async () => {
    const cookie = await sessionCookie(bridge, HTTPS);
    expect(cookie).toMatch(/;\s*Secure/i);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    const created = await createUser(bridge, HTTPS);
    expect(created.location).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/scim\/v2\/Users\//);
    expect(created.meta.location).toBe(created.location);
    expect(await sessionCookie(bridge)).not.toMatch(/;\s*Secure/i);
  });
});

describe('with PUBLIC_URL', () => {
  let bridge: HostileBridge;
  const publicUrl = 'https://bridge.example.com/identity';
  beforeAll(async () => {
    bridge = await startHostileBridge({ PUBLIC_URL: `${publicUrl}/` });
  });
  afterAll(async () => {
    await bridge.close();
  });

  it('uses it for Location, meta.location and discovery, whatever Host says, and marks cookies Secure', async () => {
    const created = await bridge
      .scim('post', '/Users')
      .set('Host', 'attacker.example')
      .set('Content-Type', 'application/scim+json')
      .send(JSON.stringify({ schemas: [USER_SCHEMA], userName: `${fresh('p')}@example.com` }))
      .expect(201);
    expect(created.headers.location).toBe(`${publicUrl}/scim/v2/Users/${created.body.id as string}`);
    expect(created.body.meta.location).toBe(created.headers.location);
    const config = await bridge.scim('get', '/ServiceProviderConfig').expect(200);
    expect(config.body.meta.location).toBe(`${publicUrl}/scim/v2/ServiceProviderConfig`);
    expect(await sessionCookie(bridge)).toMatch(/;\s*Secure/i);
  });
});

describe('the settings themselves', () => {
  const problemsOf = (env: Record<string, string>) => {
    try {
      testConfig(env);
      return [];
    } catch (error) {
      return isBridgeError(error, 'config_invalid') ? [...error.problems] : [String(error)];
    }
  };

  it('accept false, true, a hop count or proxy addresses, and refuse anything else naming the setting', () => {
    expect(testConfig({}).http.trustProxy).toBe(false);
    expect(testConfig({ TRUST_PROXY: 'true' }).http.trustProxy).toBe(true);
    expect(testConfig({ TRUST_PROXY: '2' }).http.trustProxy).toBe(2);
    expect(testConfig({ TRUST_PROXY: '10.0.0.0/8, loopback,::1' }).http.trustProxy).toEqual([
      '10.0.0.0/8',
      'loopback',
      '::1',
    ]);
    expect(problemsOf({ TRUST_PROXY: 'yes please' })).toEqual([
      'TRUST_PROXY: "yes please" is not true, false, a hop count or a list of proxy addresses — expected false, true, a hop count such as 1, or proxy addresses such as 10.0.0.0/8,loopback',
    ]);
    expect(problemsOf({ TRUST_PROXY: '10.0.0.0/33' })).toHaveLength(1);
    expect(problemsOf({ PUBLIC_URL: 'ftp://bridge.example.com' })).toEqual([
      expect.stringMatching(/^PUBLIC_URL: "ftp:\/\/bridge\.example\.com" is not an http\(s\) base URL/),
    ]);
    expect(testConfig({ PUBLIC_URL: 'https://b.example.com//' }).http.publicUrl).toBe(
      'https://b.example.com',
    );
  });
});
