/**
 * Access tokens of the hosted adapter: the OAuth 2.0 client credentials grant (RFC 6749 section 4.4) at the token
 * endpoint, with client_secret_post or private_key_jwt (RFC 7523). A token is kept until 60 seconds before it
 * expires, one request fetches it for every concurrent call, and a 401 from the runtime drops it once.
 */
import type { KeyObject } from 'node:crypto';
import type { ErrorEnvelope } from '../envelope.js';
import { errorEnvelope, problem } from '../make-envelope.js';
import { clientAssertion, type AssertionAlgorithm } from './client-assertion.js';
import { exchange, type TransportSettings } from './transport.js';

/** How the client authenticates at the token endpoint. */
export type ClientAuthentication =
  | { kind: 'client_secret_post'; clientSecret: string }
  | { kind: 'private_key_jwt'; key: KeyObject; alg: AssertionAlgorithm; keyId?: string };

/** A token is renewed this long before it expires. */
export const TOKEN_RENEWAL_MARGIN_MS = 60_000;

interface CachedToken {
  value: string;
  renewAt: number;
}

/** Hands out a current access token, or the token endpoint's refusal as an error envelope. */
export class TokenSource {
  private cached: CachedToken | undefined;
  private pending: Promise<string | ErrorEnvelope> | undefined;

  constructor(
    private readonly settings: TransportSettings,
    private readonly tokenUrl: string,
    private readonly clientId: string,
    private readonly authentication: ClientAuthentication,
    private readonly scopes: readonly string[] | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A current token: the cached one, or a new one from the token endpoint. Concurrent callers share one request,
   * which is why it does not take any one caller's abort signal (its own timeout still bounds it).
   */
  token(): Promise<string | ErrorEnvelope> {
    if (this.cached && this.now() < this.cached.renewAt) return Promise.resolve(this.cached.value);
    this.pending ??= this.fetchToken().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** Forgets `value` after the runtime refused it (401), so that the next call gets a new token. */
  drop(value: string): void {
    if (this.cached?.value === value) this.cached = undefined;
  }

  private form(): string {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: this.clientId });
    if (this.scopes && this.scopes.length > 0) form.set('scope', this.scopes.join(' '));
    if (this.authentication.kind === 'client_secret_post') {
      form.set('client_secret', this.authentication.clientSecret);
    } else {
      form.set('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
      // A new assertion for every attempt: the server accepts each jti once.
      form.set(
        'client_assertion',
        clientAssertion({
          clientId: this.clientId,
          tokenUrl: this.tokenUrl,
          key: this.authentication.key,
          alg: this.authentication.alg,
          ...(this.authentication.keyId !== undefined ? { keyId: this.authentication.keyId } : {}),
          nowSeconds: Math.floor(this.now() / 1000),
        }),
      );
    }
    return form.toString();
  }

  private async fetchToken(): Promise<string | ErrorEnvelope> {
    const answer = await exchange(this.settings, () => ({
      url: this.tokenUrl,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: this.form(),
    }));
    const requestId = answer.headers.get('x-request-id') ?? undefined;
    const body = (typeof answer.json === 'object' && answer.json !== null ? answer.json : {}) as Record<string, unknown>;
    if (answer.status === 200 && typeof body.access_token === 'string' && typeof body.expires_in === 'number' && body.expires_in > 0) {
      const lifetime = body.expires_in * 1000;
      const margin = Math.min(TOKEN_RENEWAL_MARGIN_MS, lifetime / 2);
      this.cached = { value: body.access_token, renewAt: this.now() + lifetime - margin };
      return body.access_token;
    }
    // RFC 6749 section 5.2: the OAuth error code is the problem's code (invalid_client, invalid_scope, ...).
    const code = typeof body.error === 'string' ? body.error : 'token_request_failed';
    const message = typeof body.error_description === 'string' ? body.error_description : `The token endpoint answered HTTP ${answer.status}.`;
    return errorEnvelope(problem(code, message, { httpStatus: answer.status, endpoint: 'token' }), answer.status, requestId);
  }
}
