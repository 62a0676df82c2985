import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { run as lintDockerfile } from 'dockerfilelint';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { pinnedNode } from '../../tools/node-version.js';

/**
 * The Dockerfile, read as text (no Docker engine here): dockerfilelint finds nothing, the stages and
 * runtime settings are what the image promises, and the HEALTHCHECK command really works — it runs
 * against a real node:http server. Nothing is built.
 */

const REPO_DIR = fileURLToPath(new URL('../../', import.meta.url));
const text = readFileSync(`${REPO_DIR}Dockerfile`, 'utf8');
const manifest = z
  .object({ version: z.string() })
  .parse(JSON.parse(readFileSync(`${REPO_DIR}package.json`, 'utf8')));
const testedNode = pinnedNode(`${REPO_DIR}tools/node/package.json`);

interface Instruction {
  keyword: string;
  args: string;
}
interface Stage {
  from: string;
  name?: string;
  instructions: Instruction[];
}

/** Instructions without comments, continuation lines joined, grouped by FROM. */
function stages(dockerfile: string): Stage[] {
  const joined = dockerfile.replace(/\\\n/g, ' ');
  const out: Stage[] = [];
  for (const line of joined.split('\n')) {
    const match = /^\s*([A-Z]+)\s+(.*)$/.exec(line);
    if (!match || line.trim().startsWith('#')) continue;
    const [, keyword = '', args = ''] = match;
    if (keyword === 'FROM') {
      const [from = '', , name] = args.trim().split(/\s+/);
      out.push({ from, name, instructions: [] });
    } else {
      out.at(-1)?.instructions.push({ keyword, args: args.trim() });
    }
  }
  return out;
}

const all = stages(text);
const runtime = all.at(-1) as Stage;
const args = (stage: Stage, keyword: string) =>
  stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);
const execForm = (value: string | undefined): string[] => JSON.parse(value ?? 'null') as string[];

describe('Dockerfile', () => {
  it('passes dockerfilelint with no issues', () => {
    expect(lintDockerfile(REPO_DIR, text)).toEqual([]);
  });

  it('builds every stage from the official slim image of the Node.js minor release the tests run on', () => {
    const [major, minor] = testedNode.split('.');
    const image = `node:${major}.${minor}-trixie-slim`;
    expect(all.length).toBeGreaterThanOrEqual(2);
    for (const stage of all) expect(stage.from).toBe(image);
    expect(args(runtime, 'LABEL').join(' ')).toContain(
      `org.opencontainers.image.base.name="docker.io/library/${image}"`,
    );
    const build = all.find((s) => s.name === 'build');
    expect(build && args(build, 'RUN')).toEqual(['npm install --no-audit --no-fund', 'npm run build']);
  });

  it('ships production dependencies only, installed without npm ci', () => {
    const copied = args(runtime, 'COPY').find((a) => a.endsWith('./node_modules'));
    const from = /--from=(\S+)/.exec(copied ?? '')?.[1];
    const deps = all.find((s) => s.name === from);
    expect(deps && args(deps, 'RUN').join(' ')).toContain('npm install --omit=dev --no-audit --no-fund');
    const commands = all.flatMap((s) => args(s, 'RUN')).join('\n');
    expect(commands).not.toMatch(/npm ci\b/);
    expect(args(runtime, 'RUN').join(' ')).not.toContain('npm install');
    for (const path of ['./dist', './bin', './config', './']) {
      expect(args(runtime, 'COPY').some((a) => a.endsWith(` ${path}`))).toBe(true);
    }
  });

  it('runs as a non-root user under tini, `all` by default, in production mode', () => {
    const users = args(runtime, 'USER');
    expect(users).toHaveLength(1);
    expect(users[0]).not.toMatch(/^(root|0)(:|$)/);
    const keywords = runtime.instructions.map((i) => i.keyword);
    expect(keywords.lastIndexOf('RUN')).toBeLessThan(keywords.indexOf('USER'));
    expect(execForm(args(runtime, 'ENTRYPOINT')[0])).toEqual([
      '/usr/bin/tini',
      '--',
      'node',
      '--max-semi-space-size=16',
      'bin/scim-bridge.js',
    ]);
    expect(execForm(args(runtime, 'CMD')[0])).toEqual(['all']);
    expect(args(runtime, 'ENV')).toContain('NODE_ENV=production');
    expect(args(runtime, 'EXPOSE')).toEqual(['8080']);
  });

  it('labels the image with the OCI annotations, the package version by default', () => {
    const labels = args(runtime, 'LABEL').join(' ');
    for (const key of ['title', 'description', 'licenses', 'version', 'revision', 'source', 'created']) {
      expect(labels).toContain(`org.opencontainers.image.${key}=`);
    }
    expect(labels).toContain('org.opencontainers.image.version="${VERSION}"');
    expect(args(runtime, 'ARG')).toContain(`VERSION=${manifest.version}`);
  });

  it('sends only the build inputs to the build context', () => {
    const ignore = readFileSync(`${REPO_DIR}.dockerignore`, 'utf8').split('\n');
    expect(ignore).toContain('*');
    const allowed = ignore.filter((l) => l.startsWith('!')).map((l) => l.slice(1).replace(/\/$/, ''));
    const sources = all
      .flatMap((s) => args(s, 'COPY'))
      .filter((a) => !a.startsWith('--from'))
      .flatMap((a) => a.split(/\s+/).slice(0, -1));
    expect(sources.filter((source) => !allowed.includes(source))).toEqual([]);
  });
});

describe('Dockerfile HEALTHCHECK', () => {
  const healthcheck = args(runtime, 'HEALTHCHECK')[0] ?? '';
  const command = execForm(/CMD\s+(\[.*\])$/.exec(healthcheck)?.[1]);
  let server: Server | undefined;
  afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

  /** Serves /healthz with the given status on a free port and returns the port. */
  async function serveHealthz(status: number): Promise<number> {
    const started = createServer((req, res) => {
      res.statusCode = req.url === '/healthz' ? status : 404;
      res.end();
    });
    server = started;
    await new Promise<void>((done) => started.listen(0, '127.0.0.1', done));
    return (started.address() as AddressInfo).port;
  }

  function runCheck(port: number): Promise<number | null> {
    const [program, ...rest] = command;
    expect(program).toBe('node');
    const child = spawn(process.execPath, rest, {
      env: { ...process.env, PORT: String(port) },
      stdio: 'ignore',
    });
    return new Promise((done) => child.on('exit', (code) => done(code)));
  }

  it('uses Node fetch on /healthz with a timeout, interval and retries', () => {
    expect(healthcheck).toMatch(/--interval=\d+s\s+--timeout=\d+s\s+--retries=\d+\s+CMD/);
    expect(command.join(' ')).toContain('/healthz');
  });

  it('exits 0 when /healthz answers 200', async () => {
    expect(await runCheck(await serveHealthz(200))).toBe(0);
  });

  it('exits 1 when /healthz answers 503', async () => {
    expect(await runCheck(await serveHealthz(503))).toBe(1);
  });

  it('exits 1 when nothing listens', async () => {
    const port = await serveHealthz(200);
    await new Promise<void>((done) => server?.close(() => done()));
    server = undefined;
    expect(await runCheck(port)).toBe(1);
  });
});
