import { AsyncLocalStorage } from 'node:async_hooks';
import { resolve } from 'node:path';
import type { Config } from '../config.ts';
import type { Services } from '../app/services.ts';

/** Where a command writes, and what it reads: the process's own streams, or a control channel's. */
export interface CliConsole {
  write(stream: 'stdout' | 'stderr', text: string): void;
  /** Whether stderr is a terminal (progress bars) or not (plain progress lines). */
  isTTY: boolean;
  /** Standard input already read by the client (`--password-stdin`), when the command runs in the gateway. */
  stdin?: string;
  /** The client's working directory, which relative paths of its command line are relative to. */
  cwd?: string;
}

/** A running gateway's configuration and services, which a command sent over the control channel uses. */
export interface GatewayRuntime {
  config: Config;
  services: Services;
}

interface CommandContext {
  console: CliConsole;
  gateway?: GatewayRuntime;
}

const processConsole: CliConsole = {
  write: (stream, text) => void (stream === 'stdout' ? process.stdout : process.stderr).write(text),
  get isTTY() {
    return process.stderr.isTTY === true;
  },
};

const context = new AsyncLocalStorage<CommandContext>();

/** The console of the command running now. */
export function cliConsole(): CliConsole {
  return context.getStore()?.console ?? processConsole;
}

/** A path of the command line, made absolute against the working directory of whoever typed it. */
export function commandPath(path: string): string {
  return resolve(cliConsole().cwd ?? process.cwd(), path);
}

/** Writes to the command's standard output. */
export function out(text: string): void {
  cliConsole().write('stdout', text);
}

/** Writes to the command's standard error. */
export function err(text: string): void {
  cliConsole().write('stderr', text);
}

/** The gateway a command runs in, when it came through the control channel. */
export function gatewayRuntime(): GatewayRuntime | undefined {
  return context.getStore()?.gateway;
}

/** Runs `work` as a command received over the control channel: its console, and the gateway's services. */
export function runInGateway<T>(commandConsole: CliConsole, gateway: GatewayRuntime, work: () => Promise<T>): Promise<T> {
  return context.run({ console: commandConsole, gateway }, work);
}
