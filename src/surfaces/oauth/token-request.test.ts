import { describe, expect, it } from 'vitest';
import { OAuthError } from '../../domains/oauth/index.ts';
import { tokenRequestOf } from './token-request.ts';

/** The error a form gets, as [error, description, status]; undefined when it is read. */
function refusalOf(body: string): [string, string, number] | undefined {
  try {
    tokenRequestOf(new URLSearchParams(body));
  } catch (error) {
    if (error instanceof OAuthError) return [error.error, error.description, error.status];
    throw error;
  }
  return undefined;
}

describe('tokenRequestOf', () => {
  it.each([
    [
      'an authorization_code form',
      'grant_type=authorization_code&client_id=c&code=k&redirect_uri=https%3A%2F%2Fa.example%2Fcb&code_verifier=v',
      { grantType: 'authorization_code', clientId: 'c', code: 'k', redirectUri: 'https://a.example/cb', codeVerifier: 'v', resource: undefined },
    ],
    ['a refresh_token form', 'grant_type=refresh_token&client_id=c&refresh_token=r&scope=mcp%3Aread&resource=x', { grantType: 'refresh_token', clientId: 'c', refreshToken: 'r', scope: 'mcp:read', resource: 'x' }],
  ])('reads %s', (_label, body, expected) => {
    expect(tokenRequestOf(new URLSearchParams(body))).toEqual(expected);
  });

  it('leaves absent parameters undefined and keeps empty ones empty (the grants tell them apart)', () => {
    expect(tokenRequestOf(new URLSearchParams('grant_type=authorization_code&client_id=c&resource='))).toMatchObject({ code: undefined, resource: '' });
    expect(tokenRequestOf(new URLSearchParams('grant_type=refresh_token&client_id=c&scope='))).toMatchObject({ refreshToken: undefined, scope: '' });
    expect(tokenRequestOf(new URLSearchParams('grant_type=refresh_token&client_id=c'))).toMatchObject({ scope: undefined });
  });

  it.each([
    ['a duplicated parameter, before anything else', 'grant_type=password&grant_type=x&client_secret=s', ['invalid_request', 'The parameter grant_type appears more than once.', 400]],
    ['a duplicated scope', 'grant_type=refresh_token&client_id=c&scope=a&scope=b', ['invalid_request', 'The parameter scope appears more than once.', 400]],
    ['no grant_type', 'client_id=c', ['invalid_request', 'grant_type is required.', 400]],
    ['an empty grant_type', 'grant_type=&client_id=c', ['invalid_request', 'grant_type is required.', 400]],
    ['an unsupported grant_type, before client_id', 'grant_type=client_credentials', ['unsupported_grant_type', 'Supported grant types: authorization_code, refresh_token.', 400]],
    ['no client_id', 'grant_type=refresh_token&client_secret=s', ['invalid_request', 'client_id is required (public clients authenticate with it alone).', 400]],
    ['a client_secret, even empty', 'grant_type=refresh_token&client_id=c&client_secret=', ['invalid_client', 'Clients here are public: send no client_secret.', 401]],
  ])('refuses %s', (_label, body, expected) => {
    expect(refusalOf(body)).toEqual(expected);
  });

  it('lets repeated parameters that no grant reads through (the grant ignores them)', () => {
    expect(refusalOf('grant_type=refresh_token&client_id=c&padding=1&padding=2')).toBeUndefined();
  });
});
