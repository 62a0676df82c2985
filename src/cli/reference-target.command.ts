import { startReferenceTarget } from 'scim-reference-target';
import { exitOnSignals } from '../ops/shutdown.js';
import { createLogger } from '../ops/logger.js';

export interface ReferenceTargetCommandOptions {
  port: number;
  host: string;
  token?: string;
  pageCap: number;
  latency: number;
  seed?: number;
  controlPort?: number;
  log?: boolean;
}

/**
 * `scim-bridge reference-target`: the platform emulation as its own server, for demos, benchmarks
 * and trying the bridge against something. Its control API is at /__control (see the README).
 */
export async function referenceTargetCommand(options: ReferenceTargetCommandOptions): Promise<void> {
  const token = options.token ?? process.env.TARGET_TOKEN;
  if (!token) {
    process.stderr.write('scim-bridge reference-target: no SCIM token — pass --token or set TARGET_TOKEN\n');
    process.exit(1);
  }
  const target = await startReferenceTarget({
    token,
    port: options.port,
    host: options.host,
    pageCap: options.pageCap,
    latencyMs: options.latency,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.controlPort === undefined ? {} : { controlPort: options.controlPort }),
    log: options.log ?? false,
  });
  process.stdout.write(`reference target: ${target.scimUrl}\ncontrol API: ${target.controlUrl}\n`);
  exitOnSignals(createLogger({ level: 'info', pretty: false, secrets: [token] }), 5000, () => target.close());
}
