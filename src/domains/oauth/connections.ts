import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { OAUTH_SCOPES, type ConnectedApplication } from './contract.ts';
import { redirectHostOf } from './redirect-uris.ts';
import * as store from './store.ts';

/** The connected-applications view: active grants grouped by client (docs/oauth.md). */
export function createConnections(db: Database, clock: Clock, forgetAccount: (accountId: string) => void) {
  return {
    async list(accountId: string): Promise<ConnectedApplication[]> {
      const rows = await store.listActiveGrants(db, accountId, clock.now());
      const byClient = new Map<string, ConnectedApplication>();
      for (const row of rows) {
        const current = byClient.get(row.client_id);
        const lastUsedAt = [current?.lastUsedAt, row.last_used_at].reduce<Date | null>(
          (latest, at) => (at && (!latest || at > latest) ? at : latest),
          null,
        );
        const scopes = new Set([...(current?.scopes ?? []), ...row.scopes]);
        byClient.set(row.client_id, {
          clientId: row.client_id,
          clientName: row.client_name,
          kind: row.kind,
          redirectHosts: [...new Set(row.redirect_uris.map(redirectHostOf))],
          scopes: OAUTH_SCOPES.filter((scope) => scopes.has(scope)),
          grantedAt: current?.grantedAt ?? row.created_at,
          lastUsedAt,
          activeGrants: (current?.activeGrants ?? 0) + 1,
        });
      }
      return [...byClient.values()];
    },
    async revoke(accountId: string, clientId: string): Promise<boolean> {
      const revoked = await store.revokeClientGrants(db, accountId, clientId, clock.now());
      forgetAccount(accountId);
      return revoked > 0;
    },
  };
}
