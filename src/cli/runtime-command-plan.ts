import type { Services } from '../app/services.ts';
import { UsageError } from './usage-error.ts';

// What each group of `kgate runtime` commands (runtime-commands.ts, runtime-credential-commands.ts) hands to the
// runner: a plan made from the command line alone, so that usage mistakes exit 2 before any database opens.

/** What one command asks of the services, and how its answer is shown (`json`: as one JSON line). */
export interface Planned<T = unknown> {
  run: (services: Services) => Promise<T>;
  human: (result: T) => string;
  json: boolean;
}

/** A command's plan, its answer's type forgotten: `human` only ever gets what `run` answered. */
export function plan<T>(planned: Planned<T>): Planned {
  return { run: planned.run, human: (result) => planned.human(result as T), json: planned.json };
}

/**
 * A group of `kgate runtime` commands (`org`, `product`, `principal`, ...). Asynchronous for commands that read a
 * file named on the command line (`key add --jwk FILE`): that too happens before the database opens.
 */
export type RuntimeCommandGroup = (action: string | undefined, args: string[]) => Planned | Promise<Planned>;

/** Refuses a command line with other than `count` positionals. */
export function exactly<T extends { positionals: string[] }>(usage: string, count: number, result: T): T {
  if (result.positionals.length !== count) throw new UsageError(`usage: ${usage}`);
  return result;
}

/** The `--json` option every runtime command takes. */
export const json = { type: 'boolean' } as const;
