import type { Database, Sql } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import type { Actor } from '../../kernel/principal.ts';
import { KgateError } from '../../kernel/errors.ts';
import { constantTimeEqual, sha256Hex } from '../../kernel/hashing.ts';
import { isUuid, newId } from '../../kernel/ids.ts';
import { MAX_TOKEN_NAME_LENGTH, type AuthenticatedPrincipal, type IssuedToken, type TokenInfo } from './contract.ts';
import { entitlementsOf } from '../accounts/index.ts';
import type { CredentialCache } from './credential-cache.ts';
import { createCredentialCache } from './credential-cache.ts';
import * as store from './store.ts';
import type { TokenCredentialRow } from './store.ts';
import { TOKEN_PREFIX, generateToken, isWellFormedToken, lastFourOf } from './token-format.ts';

// Writing last_used_at on every request would turn each read into a write; a minute's precision is enough.
const TOUCH_INTERVAL_MS = 60_000;

/** Input of `issueToken`. */
export interface IssueTokenInput {
  accountId: string;
  name: string;
  /** Absent: the token does not expire until revoked. */
  expiresAt?: Date | null;
}

/** Personal access token use cases. */
export interface TokensService {
  /** Creates a token; the returned secret is never stored and cannot be shown again. */
  issueToken(input: IssueTokenInput, sql?: Sql): Promise<IssuedToken>;
  listTokens(accountId: string): Promise<TokenInfo[]>;
  /** Replaces a token with a new secret under the same name and expiry; the old one stops working at once. */
  rotateToken(accountId: string, tokenId: string): Promise<IssuedToken>;
  /** Revokes a token at once. Revoking twice is harmless. */
  revokeToken(accountId: string, tokenId: string): Promise<TokenInfo>;
  /**
   * Resolves a bearer token to a principal from current records: malformed, unknown, revoked and expired tokens
   * get `unauthenticated`; a suspended account gets `account_inactive`.
   */
  authenticate(bearer: string): Promise<AuthenticatedPrincipal>;
  /**
   * The principal of an account acting through a credential that another domain proved (a signed-in web session):
   * the account's current status, plan and allowance overrides, read now. A suspended account is refused with
   * `account_inactive`, an unknown one with `unauthenticated`.
   */
  principalFor(actor: Actor): Promise<AuthenticatedPrincipal>;
}

function validName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_TOKEN_NAME_LENGTH) {
    throw new KgateError('invalid_request', `A token name has 1 to ${MAX_TOKEN_NAME_LENGTH} characters.`, {
      field: 'name',
    });
  }
  return trimmed;
}

/** The principal of an actor whose account is in good standing: its plan's entitlements with its overrides. */
function principalOf(actor: Actor, account: store.AccountStandingRow): AuthenticatedPrincipal {
  return { actor, accountId: actor.accountId, status: account.status, plan: account.plan, entitlements: entitlementsOf(account.plan, account.allowance_overrides) };
}

/** Builds the tokens service. */
export function createTokensService(db: Database, clock: Clock, cache: CredentialCache<TokenCredentialRow> = createCredentialCache()): TokensService {
  const invalidToken = () => new KgateError('unauthenticated', 'The access token is invalid, expired or revoked.');
  const unknownToken = () => new KgateError('not_found', 'The token does not exist.');

  async function issue(sql: Sql, accountId: string, name: string, expiresAt: Date | null): Promise<IssuedToken> {
    const token = generateToken();
    const info = await store.insertToken(sql, {
      id: newId(),
      accountId,
      name,
      tokenHash: sha256Hex(token),
      prefix: TOKEN_PREFIX,
      lastFour: lastFourOf(token),
      expiresAt,
    });
    return { token, info };
  }

  return {
    issueToken: async (input, sql = db) => issue(sql, input.accountId, validName(input.name), input.expiresAt ?? null),
    listTokens: (accountId) => store.listTokens(db, accountId),
    async rotateToken(accountId, tokenId) {
      if (!isUuid(tokenId)) throw unknownToken();
      return db.transaction(async (tx) => {
        const current = await store.findTokenForUpdate(tx, accountId, tokenId);
        if (!current) throw unknownToken();
        if (current.revokedAt) throw new KgateError('conflict', 'A revoked token cannot be rotated.');
        const next = await issue(tx, accountId, current.name, current.expiresAtRaw);
        await store.revokeToken(tx, tokenId, next.info.id);
        return next;
      }).finally(() => cache.forgetAccount(accountId));
    },
    async revokeToken(accountId, tokenId) {
      if (!isUuid(tokenId)) throw unknownToken();
      return db.transaction(async (tx) => {
        const current = await store.findTokenForUpdate(tx, accountId, tokenId);
        if (!current) throw unknownToken();
        await store.revokeToken(tx, tokenId, null);
        return { ...current, revokedAt: current.revokedAt ?? clock.now() };
      }).finally(() => cache.forgetAccount(accountId));
    },
    async authenticate(bearer) {
      if (!isWellFormedToken(bearer)) throw invalidToken();
      const hash = sha256Hex(bearer);
      let row = cache.get(hash);
      if (!row) {
        const generation = cache.generation();
        row = await store.findCredential(db, hash);
        if (row) cache.set(hash, row, generation);
      }
      // The lookup is by hash; the comparison guards against any future lookup that is not exact.
      if (!row || !constantTimeEqual(row.token_hash, hash)) throw invalidToken();
      const now = clock.now();
      if (row.revoked_at || (row.expires_at && row.expires_at <= now)) throw invalidToken();
      if (row.status !== 'active') {
        throw new KgateError('account_inactive', 'The account is suspended.');
      }
      if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() > TOUCH_INTERVAL_MS) {
        // The service's clock, which the cached row is compared with, not the database's.
        await store.touchToken(db, row.id, now);
        // Cached rows are shared between requests: record the touch so the next one does not repeat it.
        row.last_used_at = now;
      }
      return principalOf({ accountId: row.account_id, credentialKind: 'personal_access_token', credentialId: row.id }, row);
    },
    async principalFor(actor) {
      const account = await store.findAccountStanding(db, actor.accountId);
      if (!account) throw new KgateError('unauthenticated', 'The account does not exist.');
      if (account.status !== 'active') throw new KgateError('account_inactive', 'The account is suspended.');
      return principalOf(actor, account);
    },
  };
}
