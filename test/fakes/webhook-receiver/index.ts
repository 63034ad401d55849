/**
 * A local Standard Webhooks receiver for tests and benchmarks: an HTTPS server on 127.0.0.1 with a self-signed
 * certificate that openssl makes at start (trust it with `createWebhookTransport({ ca: receiver.cert,
 * allowPrivateAddresses: true })`). It records every request and, once it knows the endpoint's secret, verifies
 * each with the standardwebhooks library. It answers `status` (200 unless told), or a failure for the next n.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';

/** One request as the receiver saw it. */
export interface ReceivedRequest {
  /** Lower-case names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  body: string;
  /** Whether the signature verified with the secret set at the time; undefined when no secret was set. */
  verified: boolean | undefined;
  /** Date.now() when it arrived. */
  at: number;
  /** The status it was answered with. */
  status: number;
}

/** A running receiver. */
export interface WebhookReceiver {
  /** Where to point an endpoint: `https://127.0.0.1:<port>/hook`. */
  url: string;
  /** The certificate (PEM) to trust. */
  cert: string;
  /** Every request, in arrival order. */
  requests: ReceivedRequest[];
  /** The same array as `requests`. */
  received: ReceivedRequest[];
  /** The secret to verify with from now on (the one shown at creation or rotation); undefined stops verifying. */
  setSecret(secret: string | undefined): void;
  /** Same as setSecret. */
  trust(secret: string | undefined): void;
  /** The next `count` requests are answered with `status` (default 500). */
  failNext(count: number, status?: number): void;
  /** Answers every later request with this status (when no failNext is pending). */
  setStatus(status: number): void;
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 (the certificate names 127.0.0.1 and localhost). */
export async function startWebhookReceiver(options: { status?: number } = {}): Promise<WebhookReceiver> {
  const dir = mkdtempSync(join(tmpdir(), 'kgate-webhook-receiver-'));
  let cert: string;
  let key: Buffer;
  try {
    execFileSync(
      'openssl',
      [
        'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
        '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    key = readFileSync(join(dir, 'key.pem'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const requests: ReceivedRequest[] = [];
  let secret: string | undefined;
  let status = options.status ?? 200;
  let failures: { count: number; status: number } = { count: 0, status: 500 };

  const server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {};
      for (const [name, values] of Object.entries(req.headersDistinct)) {
        if (values !== undefined) headers[name] = values.join(', ');
      }
      let verified: boolean | undefined;
      if (secret !== undefined) {
        try {
          new Webhook(secret).verify(body, headers);
          verified = true;
        } catch {
          verified = false;
        }
      }
      let answer = status;
      if (failures.count > 0) {
        failures = { ...failures, count: failures.count - 1 };
        answer = failures.status;
      }
      requests.push({ headers, body, verified, at: Date.now(), status: answer });
      res.writeHead(answer, { 'content-type': 'text/plain' });
      res.end(answer >= 200 && answer < 300 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const setSecret = (value: string | undefined): void => {
    secret = value;
  };
  return {
    url: `https://127.0.0.1:${port}/hook`,
    cert,
    requests,
    received: requests,
    setSecret,
    trust: setSecret,
    failNext(count, failStatus = 500) {
      failures = { count, status: failStatus };
    },
    setStatus(value) {
      status = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
