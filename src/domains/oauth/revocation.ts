import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { sha256Hex } from '../../kernel/hashing.ts';
import { OAuthError } from './contract.ts';
import * as store from './store.ts';

/**
 * RFC 7009 revocation for public clients, which identify themselves by client_id. A client revokes only tokens
 * issued to it; another client's token is refused and stays valid. Revoking a refresh token revokes the grant
 * (every token of the family); revoking an access token revokes that token. Unknown tokens succeed (s2.2).
 */
export function createRevocation(db: Database, clock: Clock, forgetAccount: (accountId: string) => void) {
  return async (form: URLSearchParams): Promise<void> => {
    const token = form.get('token');
    if (!token || form.getAll('token').length > 1) throw new OAuthError('invalid_request', 'token is required once.');
    const clientId = form.get('client_id');
    if (!clientId) throw new OAuthError('invalid_request', 'client_id is required (public clients authenticate with it alone).');
    const hint = form.get('token_type_hint');
    if (hint !== null && hint !== 'access_token' && hint !== 'refresh_token') {
      throw new OAuthError('unsupported_token_type', 'token_type_hint is access_token or refresh_token.');
    }
    if (token.length > 200) return;
    const row = await store.findToken(db, sha256Hex(token));
    if (!row) return;
    if (row.client_id !== clientId) throw new OAuthError('unauthorized_client', 'The token was not issued to this client.');
    const now = clock.now();
    if (row.kind === 'refresh') await store.revokeGrant(db, row.grant_id, 'client', now);
    else await store.revokeToken(db, row.id, now);
    // This process's cache forgets at once; other processes hear of it from the database trigger.
    forgetAccount(row.account_id);
  };
}
