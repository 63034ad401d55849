import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { newId } from '../../../kernel/ids.ts';

/**
 * Standard Webhooks signing (docs/automation.md, "Webhooks"): secrets are `whsec_` and base64 of 32 random bytes, a
 * signature is `v1,` and base64 of HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`.
 */

/** A new endpoint signing secret. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The part of a secret shown afterwards so people can tell secrets apart (the prefix and 4 characters). */
export function secretHint(secret: string): string {
  return secret.slice(0, 10);
}

/** A new message id, the `webhook-id` of every attempt of one delivery. */
export function newMessageId(): string {
  return `msg_${newId().replaceAll('-', '')}`;
}

/** The sealing context of an endpoint's secrets: a sealed secret opens for its own endpoint only. */
export function secretContext(endpointId: string): string {
  return `webhook:${endpointId}`;
}

/**
 * The headers of one attempt: `webhook-signature` holds one `v1,` signature per secret (the current one first, then
 * the previous one while it still overlaps), separated by spaces, so receivers holding either secret verify.
 */
export function signedHeaders(messageId: string, at: Date, payload: string, secrets: readonly string[]): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(messageId, at, payload)).join(' '),
    'content-type': 'application/json',
    'user-agent': 'kgate-webhooks/1',
  };
}
