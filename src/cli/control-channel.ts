import { existsSync } from 'node:fs';
import { chmod, rm } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { runInGateway, type CliConsole, type GatewayRuntime } from './console.ts';

/**
 * The control channel of a running embedded gateway (docs/operations.md, "The command line beside the gateway").
 * PGlite allows one process per data directory, so while `kgate serve` holds it, `kgate import`, `export`, `token`,
 * `admin`, `scopes`, `runtime` and `packs` cannot open the database themselves. Instead they send their command line
 * over a Unix socket in the data directory, and the gateway runs it with the same code and its own services: the
 * same checks, the same provenance, and caches that see the change at once. The socket is readable and writable by
 * the directory's owner only (mode 0600), which is who may run these commands against the directory anyway.
 *
 * Protocol, JSON lines: the client sends `{"argv": [...], "cwd": "...", "tty": bool, "stdin": string | null}`; the
 * gateway answers `{"stdout": text}` and `{"stderr": text}` lines as the command writes, then `{"exit": code}`.
 */

/** The socket's file in a data directory. */
export function controlSocketPath(dataDir: string): string {
  return join(dataDir, 'kgate.sock');
}

/** Commands the channel runs; `serve` is not one of them. */
const CHANNEL_COMMANDS = new Set(['import', 'export', 'token', 'admin', 'scopes', 'runtime', 'packs']);
/** The request line is small (a command line and maybe a password): anything longer is refused. */
const MAX_REQUEST_BYTES = 64 * 1024;
// Unix socket paths are limited to about 107 bytes on Linux.
const MAX_SOCKET_PATH = 100;

interface ChannelRequest {
  argv: string[];
  cwd: string;
  tty: boolean;
  stdin: string | null;
}

function parseRequest(line: string): ChannelRequest | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const r = value as Partial<ChannelRequest>;
  if (typeof r !== 'object' || r === null || !Array.isArray(r.argv) || r.argv.length === 0 || r.argv.length > 64) return undefined;
  if (!r.argv.every((a) => typeof a === 'string') || typeof r.cwd !== 'string' || typeof r.tty !== 'boolean') return undefined;
  if (r.stdin !== null && typeof r.stdin !== 'string') return undefined;
  return { argv: r.argv, cwd: r.cwd, tty: r.tty, stdin: r.stdin };
}

/** Reads the first line of a socket, at most `limit` bytes; undefined when it ends or passes the limit first. */
function firstLine(socket: Socket, limit: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    let buffered = '';
    const done = (line: string | undefined) => {
      socket.off('data', onData);
      socket.off('end', onEnd);
      resolve(line);
    };
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const end = buffered.indexOf('\n');
      // The limit holds however the line arrives: in one chunk with its newline, or in many without.
      if (end > limit || (end < 0 && buffered.length > limit)) done(undefined);
      else if (end >= 0) done(buffered.slice(0, end));
    };
    const onEnd = () => done(undefined);
    socket.on('data', onData);
    socket.on('end', onEnd);
  });
}

/** A started control channel. */
export interface ControlChannel {
  path: string;
  close(): Promise<void>;
}

/**
 * Listens on the data directory's socket and runs each command received with `runCommand` inside the gateway.
 * Resolves with undefined when the path is too long for a Unix socket (the CLI then says the directory is in use).
 */
export async function startControlChannel(
  dataDir: string,
  gateway: GatewayRuntime,
  runCommand: (argv: string[]) => Promise<number>,
  onCommand: (command: string) => void = () => undefined,
): Promise<ControlChannel | undefined> {
  const path = controlSocketPath(dataDir);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) return undefined;
  // This process holds the data directory's lock, so a socket file left there is from a process that died.
  await rm(path, { force: true });
  const server: Server = createServer((socket) => void serve(socket));
  server.maxConnections = 8;

  async function serve(socket: Socket): Promise<void> {
    socket.on('error', () => undefined);
    const line = await firstLine(socket, MAX_REQUEST_BYTES);
    const request = line === undefined ? undefined : parseRequest(line);
    const send = (message: Record<string, unknown>) => {
      if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
    };
    if (!request || !CHANNEL_COMMANDS.has(request.argv[0]!)) {
      send({ stderr: 'kgate: the gateway runs packs, import, export, token, admin, scopes and runtime commands only, each as one request line of at most 64 KiB\n' });
      socket.end(`${JSON.stringify({ exit: 2 })}\n`);
      return;
    }
    onCommand(request.argv.slice(0, request.argv[0] === 'import' || request.argv[0] === 'export' ? 1 : 2).join(' '));
    const commandConsole: CliConsole = {
      write: (stream, text) => send({ [stream]: text }),
      isTTY: request.tty,
      cwd: request.cwd,
      ...(request.stdin !== null ? { stdin: request.stdin } : {}),
    };
    const code = await runInGateway(commandConsole, gateway, () => runCommand(request.argv)).catch(() => 70);
    socket.end(`${JSON.stringify({ exit: code })}\n`);
  }

  // The socket is created owner-only: the umask covers the moment between bind and chmod.
  const umask = process.umask(0o077);
  try {
    server.listen(path);
  } finally {
    process.umask(umask);
  }
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  await chmod(path, 0o600);
  return {
    path,
    // Stops taking commands at once; a command under way ends with the gateway (its database closes under it).
    async close() {
      server.close();
      await rm(path, { force: true });
    },
  };
}

/**
 * Sends a command line to the gateway running on `dataDir`, relays its output to this process, and resolves with
 * its exit code; undefined when no gateway answers on the socket (none runs, or an old one died).
 */
export async function runThroughGateway(dataDir: string, argv: readonly string[], stdin: string | undefined): Promise<number | undefined> {
  const path = controlSocketPath(dataDir);
  if (!existsSync(path)) return undefined;
  const socket = connect(path);
  const connected = await new Promise<boolean>((resolve) => {
    socket.once('connect', () => resolve(true));
    socket.once('error', () => resolve(false));
  });
  if (!connected) return undefined;
  socket.write(`${JSON.stringify({ argv, cwd: process.cwd(), tty: process.stderr.isTTY === true, stdin: stdin ?? null })}\n`);
  return new Promise<number>((resolve) => {
    let buffered = '';
    let exit = 70;
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        const message = JSON.parse(buffered.slice(0, end)) as { stdout?: string; stderr?: string; exit?: number };
        buffered = buffered.slice(end + 1);
        if (message.stdout !== undefined) process.stdout.write(message.stdout);
        if (message.stderr !== undefined) process.stderr.write(message.stderr);
        if (message.exit !== undefined) exit = message.exit;
      }
    });
    socket.on('close', () => resolve(exit));
    socket.on('error', () => undefined);
  });
}
