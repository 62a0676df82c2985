import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level: string;
  pretty: boolean;
  /** Every configured secret; any occurrence in a line is replaced before it is written. */
  secrets: readonly string[];
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
 * Path-based redaction misses secrets inside messages, URLs and error text; this last pass replaces
 * every configured secret (and its JSON-escaped form) in the serialised line.
 */
export function secretScrubber(secrets: readonly string[]): (line: string) => string {
  const needles = [
    ...new Set(secrets.filter((s) => s.length >= 4).flatMap((s) => [s, JSON.stringify(s).slice(1, -1)])),
  ];
  needles.sort((a, b) => b.length - a.length);
  if (needles.length === 0) return (line) => line;
  return (line) => {
    let out = line;
    for (const needle of needles) if (out.includes(needle)) out = out.split(needle).join(REDACTED);
    return out;
  };
}

/** A logger that writes nothing, for code paths that require one. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
