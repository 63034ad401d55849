import { Hono } from 'hono';
import { sha256Hex } from '../../kernel/hashing.ts';
import type { HttpEnv } from './context.ts';

/** A script served from our own origin, at an address that changes with its content. */
export interface StaticScript {
  path: string;
  body: string;
}

/** The script `body` as `/assets/{name}-{first 12 hex of its SHA-256}.js`. */
export function staticScript(name: string, body: string): StaticScript {
  return { path: `/assets/${name}-${sha256Hex(body).slice(0, 12)}.js`, body };
}

const HEADERS = { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=31536000, immutable', 'X-Content-Type-Options': 'nosniff' };

/** Serves scripts, each cacheable for a year: a changed script has another address. */
export function serveScripts(scripts: readonly StaticScript[]): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  for (const script of scripts) app.get(script.path, (c) => c.body(script.body, 200, HEADERS));
  return app;
}
