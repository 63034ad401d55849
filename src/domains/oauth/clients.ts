import { randomBytes } from 'node:crypto';
import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { OAuthError, type OAuthClient } from './contract.ts';
import { acceptClientMetadata } from './client-metadata.ts';
import { createClientIdDocuments, looksLikeClientIdUrl, type ClientMetadataFetch } from './client-id-document.ts';
import * as store from './store.ts';

/** Largest registration request body we read (the surface enforces it before parsing). */
export const MAX_REGISTRATION_BYTES = 16 * 1024;

/** Client registration and lookup. */
export interface Clients {
  /** RFC 7591 s3.2.1 response body of a new public client. */
  register(metadata: unknown): Promise<Record<string, unknown>>;
  /**
   * The client a client_id names: a registered client from the database, or a client ID metadata document fetched
   * (within bounds) and stored. Unknown or unacceptable clients are OAuthError `invalid_client`.
   */
  resolve(clientId: string): Promise<OAuthClient>;
}

/** Builds client registration and lookup. */
export function createClients(db: Database, clock: Clock, fetchDocument: ClientMetadataFetch): Clients {
  const documents = createClientIdDocuments(fetchDocument, () => clock.now().getTime());
  return {
    async register(metadata) {
      const accepted = acceptClientMetadata(metadata);
      // Not a secret: a public client proves nothing with its id; PKCE and the exact redirect URI protect the code.
      const clientId = `kgc_${randomBytes(16).toString('base64url')}`;
      const now = clock.now();
      await store.upsertClient(db, { clientId, kind: 'registered', ...accepted.client }, accepted.document, now);
      return { client_id: clientId, client_id_issued_at: Math.floor(now.getTime() / 1000), ...accepted.document };
    },
    async resolve(clientId) {
      if (looksLikeClientIdUrl(clientId)) {
        const { client, accepted } = await documents.resolve(clientId);
        // Stored so that grants can refer to it and account pages can name it after the cache forgot it. A registered
        // client can never take the identity of a document URL, and the reverse.
        if (!(await store.upsertClient(db, client, accepted.document, clock.now()))) {
          throw new OAuthError('invalid_client', 'Unknown client.');
        }
        return client;
      }
      const client = clientId.length <= 100 ? await store.findClient(db, clientId) : undefined;
      if (!client || client.kind !== 'registered') throw new OAuthError('invalid_client', 'Unknown client_id.');
      return client;
    },
  };
}
