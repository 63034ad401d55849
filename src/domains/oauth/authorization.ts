import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { sha256Hex } from '../../kernel/hashing.ts';
import { newId } from '../../kernel/ids.ts';
import { SECRET_PREFIXES } from '../../kernel/secret-prefixes.ts';
import { newSecret } from '../../kernel/secrets.ts';
import { AUTHORIZATION_CODE_TTL_MS, OAuthError, type AuthorizationCheck, type AuthorizationRequest, type OAuthClient } from './contract.ts';
import type { Clients } from './clients.ts';
import { isS256Challenge } from './pkce.ts';
import { isLoopbackRedirect, redirectHostOf, withParameters } from './redirect-uris.ts';
import { parseScopes } from './scopes.ts';
import * as store from './store.ts';

/** Longest `state` we echo. */
export const MAX_STATE_LENGTH = 1024;

// RFC 6749 s3.1: request and response parameters must not be included more than once.
const SINGLE_VALUED = ['client_id', 'redirect_uri', 'response_type', 'state', 'scope', 'code_challenge', 'code_challenge_method', 'resource'];

/** The authorization endpoint's use cases. */
export interface Authorization {
  check(params: URLSearchParams): Promise<AuthorizationCheck>;
  approve(accountId: string, request: AuthorizationRequest): Promise<string>;
  deny(request: AuthorizationRequest): string;
}

/** Builds the authorization endpoint logic. */
export function createAuthorization(
  db: Database,
  clock: Clock,
  clients: Clients,
  options: { issuer: () => string; resource: () => string; narrowResources?: () => readonly string[] },
): Authorization {
  const pageError = (error: OAuthError): AuthorizationCheck => ({ kind: 'page_error', error: error.error, description: error.description });

  return {
    async check(params) {
      const duplicated = SINGLE_VALUED.find((name) => params.getAll(name).length > 1);
      const clientId = params.get('client_id');
      if (!clientId) return pageError(new OAuthError('invalid_request', 'The request names no client_id.'));
      let client: OAuthClient;
      try {
        client = await clients.resolve(clientId);
      } catch (error) {
        if (error instanceof OAuthError) return pageError(error);
        throw error;
      }
      const redirectUri = params.get('redirect_uri');
      // Compared as exact strings: no case folding, trimming, decoding or prefix matching (RFC 9700 s4.1.1).
      if (redirectUri === null || params.getAll('redirect_uri').length !== 1 || !client.redirectUris.includes(redirectUri)) {
        return pageError(new OAuthError('invalid_request', 'The redirect_uri is missing or is not registered for this client.'));
      }
      const state = params.get('state') ?? undefined;
      const fail = (error: string, description: string): AuthorizationCheck => ({
        kind: 'redirect_error',
        redirectTo: withParameters(redirectUri, {
          error,
          error_description: description,
          ...(state !== undefined && state.length <= MAX_STATE_LENGTH ? { state } : {}),
          iss: options.issuer(),
        }),
      });
      if (duplicated) return fail('invalid_request', `The parameter ${duplicated} appears more than once.`);
      if (state !== undefined && state.length > MAX_STATE_LENGTH) return fail('invalid_request', `state has at most ${MAX_STATE_LENGTH} characters.`);
      if (params.get('response_type') !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported.');
      if (params.has('request') || params.has('request_uri')) return fail('invalid_request', 'Request objects are not supported.');
      const challenge = params.get('code_challenge');
      const method = params.get('code_challenge_method');
      if (!challenge) return fail('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256.');
      if (method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256 (plain and other methods are refused).');
      if (!isS256Challenge(challenge)) return fail('invalid_request', 'code_challenge must be 43 base64url characters (S256).');
      const resource = params.get('resource');
      const resources = [options.resource(), ...(options.narrowResources?.() ?? [])];
      if (resource !== null && !resources.includes(resource)) {
        return fail('invalid_target', `The resources here are ${resources.join(' and ')}.`);
      }
      let scopes;
      try {
        scopes = parseScopes(params.get('scope') ?? undefined);
      } catch (error) {
        if (error instanceof OAuthError) return fail(error.error, error.description);
        throw error;
      }
      if (scopes.includes('offline_access') && !client.grantTypes.includes('refresh_token')) {
        scopes = scopes.filter((scope) => scope !== 'offline_access');
      }
      return {
        kind: 'valid',
        request: {
          client,
          redirectUri,
          redirectHost: redirectHostOf(redirectUri),
          loopbackRedirect: isLoopbackRedirect(redirectUri),
          state,
          scopes,
          codeChallenge: challenge,
          resource: resource ?? options.resource(),
        },
      };
    },

    async approve(accountId, request) {
      const code = newSecret(SECRET_PREFIXES.authorizationCode);
      const now = clock.now();
      const grantId = newId(now.getTime());
      await db.transaction(async (tx) => {
        await store.insertGrant(tx, { id: grantId, accountId, clientId: request.client.clientId, scopes: request.scopes, resource: request.resource, now });
        await store.insertCode(tx, {
          codeHash: sha256Hex(code),
          grantId,
          clientId: request.client.clientId,
          redirectUri: request.redirectUri,
          codeChallenge: request.codeChallenge,
          expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_TTL_MS),
        });
      });
      return withParameters(request.redirectUri, { code, state: request.state, iss: options.issuer() });
    },

    deny(request) {
      return withParameters(request.redirectUri, {
        error: 'access_denied',
        error_description: 'The account owner denied the request.',
        state: request.state,
        iss: options.issuer(),
      });
    },
  };
}
