/**
 * How the fake Drive speaks: Google's JSON error envelope (`{"error":{"code","message","errors":[{reason,...}]}}`),
 * partial responses selected by the `fields` parameter, and the subset of the `q` search language the adapter uses.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One answer of the fake: status, headers and a JSON (or raw) body. */
export interface FakeAnswer {
  status: number;
  headers?: Record<string, string>;
  json?: unknown;
  raw?: Buffer;
}

/** The Google API error envelope, as Drive v3 sends it. */
export function driveError(
  status: number,
  reason: string,
  message: string,
  extra: { domain?: string; location?: string; locationType?: string; status?: string; headers?: Record<string, string> } = {},
): FakeAnswer {
  const detail = {
    message,
    domain: extra.domain ?? 'global',
    reason,
    ...(extra.location ? { location: extra.location, locationType: extra.locationType ?? 'parameter' } : {}),
  };
  return {
    status,
    ...(extra.headers ? { headers: extra.headers } : {}),
    json: { error: { code: status, message, errors: [detail], ...(extra.status ? { status: extra.status } : {}) } },
  };
}

export const notFound = (id: string): FakeAnswer => driveError(404, 'notFound', `File not found: ${id}.`, { location: 'fileId' });
export const invalidValue = (location: string, message = 'Invalid Value'): FakeAnswer => driveError(400, 'invalid', message, { location });
export const badRequest = (message: string): FakeAnswer => driveError(400, 'badRequest', message);

/** Writes an answer. */
export function send(res: ServerResponse, answer: FakeAnswer): void {
  if (answer.raw) {
    res.writeHead(answer.status, { 'content-type': 'application/octet-stream', ...answer.headers }).end(answer.raw);
    return;
  }
  const body = answer.json === undefined ? '' : JSON.stringify(answer.json);
  res.writeHead(answer.status, { 'content-type': 'application/json; charset=UTF-8', ...answer.headers }).end(body);
}

/**
 * Takes the first queued predicate that matches `request` off the queue: how the Google fakes lose one answer on
 * demand (the work is done, the answer is not delivered) or refuse one request.
 */
export function takeMatching<R, E extends { match: (request: R) => boolean } | ((request: R) => boolean)>(queue: E[], request: R): E | undefined {
  const index = queue.findIndex((entry) => (typeof entry === 'function' ? entry(request) : entry.match(request)));
  return index < 0 ? undefined : queue.splice(index, 1)[0];
}

/** A fake served on a loopback port: its origin, and closing it (connections first). */
export interface ServedFake {
  origin: string;
  close: () => Promise<void>;
}

/** Serves `handle` on 127.0.0.1 at a free port; a handler that throws answers `failure`. */
export async function serveFake(handle: (req: IncomingMessage) => Promise<FakeAnswer>, failure: FakeAnswer): Promise<ServedFake> {
  const server = createServer((req, res) => {
    handle(req).then(
      (answer) => send(res, answer),
      () => send(res, failure),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A parsed `fields` mask: each selected key, with the mask of its sub-fields when it has one. */
type FieldMask = Map<string, FieldMask | null>;

/** Parses a `fields` value (`nextPageToken,files(id,name)`, `user`, `changes(file/parents)`); null when malformed. */
export function parseFields(value: string): FieldMask | null {
  let at = 0;
  // item := name [ '(' list ')' | '/' item ]
  function item(into: FieldMask): boolean {
    const match = /^[A-Za-z_*][A-Za-z0-9_]*/.exec(value.slice(at));
    if (!match) return false;
    at += match[0].length;
    let sub: FieldMask | null = null;
    if (value[at] === '(') {
      at += 1;
      sub = list();
      if (!sub || value[at] !== ')') return false;
      at += 1;
    } else if (value[at] === '/') {
      at += 1;
      sub = new Map();
      if (!item(sub)) return false;
    }
    const prior = into.get(match[0]);
    into.set(match[0], prior === null || sub === null ? null : prior ? new Map([...prior, ...sub]) : sub);
    return true;
  }
  // list := item { ',' item }
  function list(): FieldMask | null {
    const mask: FieldMask = new Map();
    for (;;) {
      while (value[at] === ' ') at += 1;
      if (!item(mask)) return null;
      if (value[at] !== ',') return mask;
      at += 1;
    }
  }
  const mask = list();
  return mask && at === value.length ? mask : null;
}

/** Keeps only what the mask selects (Drive's partial response); `*` selects everything at its level. */
export function selectFields(value: unknown, mask: FieldMask | null): unknown {
  if (mask === null || mask.has('*')) return value;
  if (Array.isArray(value)) return value.map((item) => selectFields(item, mask));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, sub] of mask) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== undefined) out[key] = selectFields(field, sub);
  }
  return out;
}

/** One condition of a `q` search. */
export type QueryTerm =
  | { kind: 'parent'; id: string }
  | { kind: 'trashed'; value: boolean }
  | { kind: 'name'; value: string }
  | { kind: 'mimeType'; equal: boolean; value: string };

/**
 * Parses the `q` subset the adapter sends: terms joined by `and`, each `'<id>' in parents`, `trashed = true|false`,
 * `name = '<text>'` or `mimeType (=|!=) '<text>'`, with Drive's escapes (`\'` and `\\`) inside quotes. Null when the
 * query is outside the subset (the fake answers 400 then, as Drive does for a query it cannot read).
 */
export function parseQuery(q: string): QueryTerm[] | null {
  const terms: QueryTerm[] = [];
  let rest = q.trim();
  const quoted = (): string | null => {
    const match = /^'((?:[^'\\]|\\.)*)'/.exec(rest);
    if (!match) return null;
    rest = rest.slice(match[0].length).trimStart();
    return match[1]!.replace(/\\(.)/g, '$1');
  };
  for (;;) {
    if (rest.startsWith("'")) {
      const id = quoted();
      if (id === null || !/^in\s+parents\b/.test(rest)) return null;
      rest = rest.replace(/^in\s+parents/, '').trimStart();
      terms.push({ kind: 'parent', id });
    } else {
      const match = /^(trashed|name|mimeType)\s*(!=|=)\s*/.exec(rest);
      if (!match) return null;
      rest = rest.slice(match[0].length);
      if (match[1] === 'trashed') {
        const flag = /^(true|false)\b/.exec(rest);
        if (!flag || match[2] !== '=') return null;
        rest = rest.slice(flag[0].length).trimStart();
        terms.push({ kind: 'trashed', value: flag[1] === 'true' });
      } else {
        const text = quoted();
        if (text === null) return null;
        if (match[1] === 'name') {
          if (match[2] !== '=') return null;
          terms.push({ kind: 'name', value: text });
        } else {
          terms.push({ kind: 'mimeType', equal: match[2] === '=', value: text });
        }
      }
    }
    if (rest === '') return terms;
    const and = /^and\s+/i.exec(rest);
    if (!and) return null;
    rest = rest.slice(and[0].length);
  }
}
