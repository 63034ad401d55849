import { JWT_BEARER_ASSERTION_TYPE, RuntimeOAuthError } from './contract.ts';

/**
 * How a token request authenticates its client (RFC 6749 section 2.3, RFC 7523 section 2.2): exactly one of HTTP
 * Basic, a secret in the form, or a signed assertion. Read from the request alone; nothing is looked up here.
 */
export type ClientAuthentication =
  | { method: 'client_secret_basic'; clientId: string; secret: string }
  | { method: 'client_secret_post'; clientId: string; secret: string }
  | { method: 'private_key_jwt'; clientId: string | undefined; assertion: string };

/** The challenge of a failed HTTP Basic client authentication (RFC 6749 section 5.2). */
export const BASIC_CHALLENGE = 'Basic realm="kgate"';

// An assertion is a few hundred bytes to a few KiB (an RSA-8192 signature is 1,366 characters).
const MAX_ASSERTION_LENGTH = 8 * 1024;

/** An invalid_client refusal, with the Basic challenge when the client used HTTP Basic. */
export function invalidClient(method: ClientAuthentication['method'] | undefined, description: string): RuntimeOAuthError {
  return new RuntimeOAuthError('invalid_client', description, method === 'client_secret_basic' ? { wwwAuthenticate: BASIC_CHALLENGE } : {});
}

// RFC 6749 section 2.3.1: the client id and secret are form-urlencoded before they are joined for Basic.
function formDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

function basicCredentials(header: string): { clientId: string; secret: string } {
  const match = /^Basic +([A-Za-z0-9+/]+={0,2})$/i.exec(header.trim());
  const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  const clientId = colon > 0 ? formDecode(decoded.slice(0, colon)) : undefined;
  const secret = colon > 0 ? formDecode(decoded.slice(colon + 1)) : undefined;
  if (!clientId || !secret) throw invalidClient('client_secret_basic', 'The Authorization header must be HTTP Basic with the client id and secret.');
  return { clientId, secret };
}

/**
 * Reads the one client authentication of a token request. More than one method is `invalid_request` (RFC 6749
 * section 2.3: a client must not use more than one); none, or a malformed one, is `invalid_client`.
 */
export function clientAuthenticationOf(form: URLSearchParams, authorizationHeader: string | undefined): ClientAuthentication {
  const basic = authorizationHeader !== undefined && authorizationHeader.trim() !== '';
  const post = form.has('client_secret');
  const jwt = form.has('client_assertion') || form.has('client_assertion_type');
  if (Number(basic) + Number(post) + Number(jwt) > 1) {
    throw new RuntimeOAuthError('invalid_request', 'Use one client authentication method: HTTP Basic, client_secret, or client_assertion.');
  }
  const formClientId = form.get('client_id') ?? undefined;
  if (basic) {
    const credentials = basicCredentials(authorizationHeader);
    if (formClientId !== undefined && formClientId !== credentials.clientId) {
      throw new RuntimeOAuthError('invalid_request', 'client_id differs from the client of the Authorization header.');
    }
    return { method: 'client_secret_basic', ...credentials };
  }
  if (post) {
    if (!formClientId) throw new RuntimeOAuthError('invalid_request', 'client_id is required with client_secret.');
    return { method: 'client_secret_post', clientId: formClientId, secret: form.get('client_secret')! };
  }
  if (jwt) {
    const assertion = form.get('client_assertion');
    if (!assertion || !form.has('client_assertion_type')) {
      throw new RuntimeOAuthError('invalid_request', 'client_assertion and client_assertion_type come together.');
    }
    if (form.get('client_assertion_type') !== JWT_BEARER_ASSERTION_TYPE) {
      throw invalidClient('private_key_jwt', `client_assertion_type must be ${JWT_BEARER_ASSERTION_TYPE}.`);
    }
    if (assertion.length > MAX_ASSERTION_LENGTH) throw invalidClient('private_key_jwt', 'The client assertion is too large.');
    return { method: 'private_key_jwt', clientId: formClientId || undefined, assertion };
  }
  throw invalidClient(undefined, 'Client authentication is required: HTTP Basic, client_secret, or client_assertion (private_key_jwt).');
}
