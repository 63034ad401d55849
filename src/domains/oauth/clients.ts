import { randomBytes } from 'node:crypto';
import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { OAuthError, type OAuthClient } from './contract.ts';
import { acceptClientMetadata } from './client-metadata.ts';
import { createClientIdDocuments, looksLikeClientIdUrl, type ClientMetadataFetch } from './client-id-document.ts';
import * as store from './store.ts';

/** Largest registration request body we read (the surface enforces it before parsing). */
export const MAX_REGISTRATION_BYTES = 16 * 1024;

/**
 * Registrations one client address (IPv4 address or IPv6 /64) may make per REGISTRATION_WINDOW_MS. A client
 * registers once per installation, but clients that keep no credentials (development tools, inspectors) register
 * again at every start: sixty an hour is one a minute for a developer or an office behind one address, and holds
 * an abuser to 1,440 stored clients a day per address, each purged after 30 days without a grant.
 */
export const REGISTRATIONS_PER_ADDRESS = 60;
/** The fixed window of REGISTRATIONS_PER_ADDRESS; it starts with the first registration of the address. */
export const REGISTRATION_WINDOW_MS = 60 * 60_000;

/** Client registration and lookup. */
export interface Clients {
  /**
   * RFC 7591 s3.2.1 response body of a new public client. With a client address (HTTP registration), counted
   * against REGISTRATIONS_PER_ADDRESS once the metadata is acceptable and before anything is stored; over the
   * limit: OAuthError `temporarily_unavailable` (429, retryAfterSeconds) and nothing is stored.
   */
  register(metadata: unknown, clientAddress?: string): Promise<Record<string, unknown>>;
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
    async register(metadata, clientAddress) {
      const accepted = acceptClientMetadata(metadata);
      const now = clock.now();
      if (clientAddress !== undefined) {
        const count = await store.countRegistration(db, {
          addressKey: clientAddress,
          now,
          windowMs: REGISTRATION_WINDOW_MS,
          maxRegistrations: REGISTRATIONS_PER_ADDRESS,
        });
        if (!count.allowed) {
          const retryAfterSeconds = Math.max(1, Math.ceil((count.windowEndsAt.getTime() - now.getTime()) / 1000));
          throw new OAuthError(
            'temporarily_unavailable',
            `Too many client registrations from this address; try again in ${retryAfterSeconds} seconds.`,
            429,
            retryAfterSeconds,
          );
        }
      }
      // Not a secret: a public client proves nothing with its id; PKCE and the exact redirect URI protect the code.
      const clientId = `kgc_${randomBytes(16).toString('base64url')}`;
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
