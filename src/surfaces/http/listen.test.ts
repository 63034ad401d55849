import { describe, expect, it } from 'vitest';
import { getRequestListener } from '@hono/node-server';
import { listen as listenNode } from './listen.ts';

// The tests speak fetch handlers; the server takes a Node handler, as the app provides one.
const listen = (fetch: (request: Request) => Response | Promise<Response>, options: { host: string; port: number }) =>
  listenNode(getRequestListener(fetch), options);

describe('graceful close', () => {
  it('lets an in-flight request finish, refuses new connections, then resolves', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    const server = await listen(
      async (request) => {
        if (new URL(request.url).pathname === '/slow') {
          started();
          await held;
          return new Response('finished');
        }
        return new Response('fast');
      },
      { host: '127.0.0.1', port: 0 },
    );
    expect(await (await fetch(`${server.url}/fast`)).text()).toBe('fast');

    const slow = fetch(`${server.url}/slow`);
    await inFlight;
    let closed = false;
    const closing = server.close(10_000).then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(closed).toBe(false);
    await expect(fetch(`${server.url}/fast`)).rejects.toThrow();

    release();
    const response = await slow;
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('finished');
    await closing;
    expect(closed).toBe(true);
  });

  it('waits for a handler whose client already hung up, so the database is not closed under it', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    let finished = false;
    const server = await listen(
      async () => {
        started();
        await held;
        finished = true;
        return new Response('late');
      },
      { host: '127.0.0.1', port: 0 },
    );
    const abort = new AbortController();
    const request = fetch(`${server.url}/slow`, { signal: abort.signal }).catch(() => 'aborted');
    await inFlight;
    abort.abort();
    expect(await request).toBe('aborted');
    let closed = false;
    const closing = server.close(10_000).then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(closed).toBe(false);
    release();
    await closing;
    expect(finished).toBe(true);
  });

  it('cuts connections that outlive the grace period', async () => {
    const server = await listen(() => new Promise<Response>(() => undefined), { host: '127.0.0.1', port: 0 });
    const hanging = fetch(`${server.url}/forever`).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await server.close(200);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await hanging).toBeInstanceOf(Error);
  });
});
