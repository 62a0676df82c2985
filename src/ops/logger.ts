import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import { secretLines } from '../config/secret-lines.js';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level: string;
  pretty: boolean;
  /** Every configured secret; any occurrence in a line is replaced before it is written. */
  secrets: readonly string[] | SecretRegistry;
  /** Where lines go; stdout by default. Tests pass a sink and read the JSON back. */
  destination?: DestinationStream;
}

const REDACTED = '[REDACTED]';

/** Field paths that carry credentials whatever their value. */
const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-bridge-signature"]',
  'req.headers["x-okta-verification-challenge"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  '*.token',
  '*.password',
  '*.secret',
  '*.apiToken',
  '*.bindPassword',
  'password',
  'token',
];

export function createLogger(options: LoggerOptions): Logger {
  const scrub = secretScrubber(options.secrets);
  const destination =
    options.destination ?? (options.pretty ? pretty({ colorize: true, sync: true }) : pino.destination(1));
  return pino(
    {
      level: options.level,
      base: undefined,
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      hooks: { streamWrite: scrub },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

/**
 * The secrets a logger scrubs: the configured ones, and those rotated in later (a `*_FILE` re-read),
 * each value and each of its lines (a value may hold several secrets, one per line).
 */
export class SecretRegistry {
  private readonly values = new Set<string>();
  private changes = 0;

  constructor(initial: readonly string[] = []) {
    for (const value of initial) this.add(value);
  }

  add(value: string): void {
    for (const secret of [value, ...secretLines(value)]) {
      if (secret.length < 4 || this.values.has(secret)) continue;
      this.values.add(secret);
      this.changes++;
    }
  }

  get version(): number {
    return this.changes;
  }

  list(): string[] {
    return [...this.values];
  }
}

/**
 * Path-based redaction misses secrets inside messages, URLs and error text; this last pass replaces
 * every configured secret (and its JSON-escaped form) in the serialised line.
 */
export function secretScrubber(secrets: readonly string[] | SecretRegistry): (line: string) => string {
  const registry = secrets instanceof SecretRegistry ? secrets : new SecretRegistry(secrets);
  let version = -1;
  let needles: string[] = [];
  return (line) => {
    if (version !== registry.version) {
      version = registry.version;
      needles = [...new Set(registry.list().flatMap((s) => [s, JSON.stringify(s).slice(1, -1)]))];
      needles.sort((a, b) => b.length - a.length);
    }
    let out = line;
    for (const needle of needles) if (out.includes(needle)) out = out.split(needle).join(REDACTED);
    return out;
  };
}

/** A logger that writes nothing, for code paths that require one. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
