import { Writable } from 'node:stream';
import { createLogger, type Logger, type SecretRegistry } from '../../src/ops/logger.js';

/** A logger writing JSON lines into memory, so tests read what really comes out (as pino's own tests do). */
export interface LogSink {
  logger: Logger;
  lines(): Record<string, unknown>[];
  text(): string;
}

export function logSink(secrets: readonly string[] | SecretRegistry = [], level = 'debug'): LogSink {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  const logger = createLogger({ level, pretty: false, secrets, destination });
  return {
    logger,
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
