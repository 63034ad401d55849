/**
 * A local HTTPS server for OAuth client ID metadata documents, with a self-signed certificate that openssl makes at
 * start: tests put documents at paths, point a client_id at them, and count how often the gateway fetched each.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A document the local HTTPS server answers with. */
export interface ServedDocument {
  body: string;
  status?: number;
  contentType?: string;
  cacheControl?: string;
}

/** A local HTTPS server for client ID metadata documents, with a self-signed certificate made at start. */
export interface DocumentServer {
  /** `https://localhost:<port>` */
  origin: string;
  /** The certificate (PEM) to trust: `createGuardedFetch({ ca: cert, allowPrivateAddresses: true })`. */
  cert: string;
  /** Documents by path; change them at any time. */
  documents: Map<string, ServedDocument>;
  /** Requests per path. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

/** Starts the document server on 127.0.0.1 (the certificate names localhost and 127.0.0.1). */
export async function startDocumentServer(): Promise<DocumentServer> {
  const dir = mkdtempSync(join(tmpdir(), 'kgate-client-documents-'));
  try {
    execFileSync(
      'openssl',
      [
        'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
        '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    const key = readFileSync(join(dir, 'key.pem'));
    const documents = new Map<string, ServedDocument>();
    const hits = new Map<string, number>();
    const server = createServer({ key, cert }, (req, res) => {
      const path = req.url ?? '/';
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const document = documents.get(path);
      if (!document) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      res.writeHead(document.status ?? 200, {
        'content-type': document.contentType ?? 'application/json',
        ...(document.cacheControl ? { 'cache-control': document.cacheControl } : {}),
      });
      res.end(document.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      origin: `https://localhost:${port}`,
      cert,
      documents,
      hits,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
