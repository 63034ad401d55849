import { pino, type Logger } from 'pino';

/** The process logger type. */
export type { Logger } from 'pino';

// Defence in depth: even if a caller passes a whole header set or body, these never reach the log.
const REDACT = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  'headers.cookie',
  '*.token',
  'token',
  '*.password',
  'password',
  'content',
  '*.content',
];

/** A JSON logger writing one line per event to stdout. Tokens, passwords and note bodies are redacted. */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    { level, base: { service: 'kgate' }, redact: { paths: REDACT, censor: '[redacted]' } },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}
