/**
 * The OAuth lifecycle of delegated connections (connections.manage): start an authorization for Drive and/or
 * Classroom (authorization code, PKCE S256, a 256-bit state kept only as its SHA-256 and taken by one callback),
 * complete it at `{base}/api/product/v1/connections/google/oauth/callback`, show a connection's status, disconnect it
 * (the grant revoked at Google, the tokens dropped). The customer's browser is sent back only to a target the product
 * registered (return-targets.ts), checked when the authorization starts and again when it completes.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '../../../db/port.ts';
import type { Clock } from '../../../kernel/clock.ts';
import { KgateError } from '../../../kernel/errors.ts';
import { sha256Hex } from '../../../kernel/hashing.ts';
import { isUuid, newId } from '../../../kernel/ids.ts';
import { driveAdapter, type ProviderHttp, type ProviderTokens, type TokenSealer } from '../../providers/index.ts';
import {
  AUTHORIZATION_TTL_MS,
  grantedServices,
  SERVICE_SCOPES,
  type ConnectionOwner,
  type ConnectionService,
  type ConnectionView,
  type GoogleConnectionSettings,
} from './contract.ts';
import { admittedReturnTarget, returnUrl } from './return-targets.ts';
import * as store from './store.ts';
import { sealGrant, tokenContext } from './tokens.ts';

/** What the lifecycle needs. */
export interface LifecycleDeps {
  db: Database;
  clock: Clock;
  http: ProviderHttp;
  sealer: TokenSealer;
  google: GoogleConnectionSettings;
  /** The exact redirect URI registered with Google: `{base}/api/product/v1/connections/google/oauth/callback`. */
  callbackUrl: () => string;
}

/** What a product asks for when it starts a connection. */
export interface StartRequest {
  services: readonly ConnectionService[];
  /** Where the customer's browser returns: a registered return origin's URL, or a registered redirect URI exactly. */
  returnTo: string;
  /** Echoed back to the return target as `state`, for the product's own correlation. */
  state?: string | undefined;
}

/** A started authorization: where to send the customer's browser, and until when it may be completed. */
export interface StartedConnection {
  authorizationUrl: string;
  expiresAt: Date;
  scopes: string[];
}

/**
 * How a callback ends: a redirect to the product's registered target (connected, or why not), or a refusal answered
 * as a page of kgate's own when no registered target can be trusted (an unknown, replayed or expired state; an
 * installation gone; a target no longer registered). A refusal stores nothing.
 */
export type CallbackOutcome = { kind: 'redirect'; location: string } | { kind: 'refused'; reason: string };

/** The query of Google's redirect to the callback. */
export interface CallbackParams {
  state?: string | undefined;
  code?: string | undefined;
  error?: string | undefined;
}

/** The connection lifecycle. */
export interface ConnectionLifecycle {
  start(owner: ConnectionOwner, request: StartRequest): Promise<StartedConnection>;
  complete(params: CallbackParams): Promise<CallbackOutcome>;
  list(owner: ConnectionOwner): Promise<ConnectionView[]>;
  /** One connection of the installation; `not_found` for another installation's or an unknown id. */
  get(owner: ConnectionOwner, connectionId: string): Promise<ConnectionView>;
  disconnect(owner: ConnectionOwner, connectionId: string): Promise<ConnectionView>;
  /** The installation's own connection row (with sealed tokens), or `not_found`. */
  own(owner: ConnectionOwner, connectionId: string): Promise<store.SealedConnection>;
}

/** A connection as products see it. */
export function presentConnection(connection: store.SealedConnection): ConnectionView {
  return {
    id: connection.id,
    provider: 'google',
    status: connection.status === 'active' ? 'active' : 'revoked',
    services: grantedServices(connection.scopes),
    scopes: [...connection.scopes],
    connectedAt: connection.connectedAt?.toISOString() ?? null,
    updatedAt: connection.updatedAt.toISOString(),
    lastError: connection.lastError,
  };
}

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

const verifierContext = (stateHash: string) => `education-authorization:${stateHash}`;

// Google's error codes on the redirect are short identifiers; anything else is not echoed to the product.
function safeProviderError(error: string): string {
  return /^[a-z_]{1,64}$/.test(error) ? error : 'access_denied';
}

/** Builds the connection lifecycle. */
export function createConnectionLifecycle(deps: LifecycleDeps): ConnectionLifecycle {
  const { db, clock, http, sealer, google } = deps;

  async function own(owner: ConnectionOwner, connectionId: string): Promise<store.SealedConnection> {
    const connection = isUuid(connectionId) ? await store.findConnection(db, connectionId) : undefined;
    if (!connection || connection.installationId !== owner.installationId || connection.status === 'pending') {
      throw new KgateError('not_found', 'The connection does not exist.');
    }
    return connection;
  }

  function authorizationUrl(state: string, challenge: string, scopes: readonly string[]): string {
    const url = new URL(google.urls.authorize);
    url.searchParams.set('client_id', google.clientId);
    url.searchParams.set('redirect_uri', deps.callbackUrl());
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', scopes.join(' '));
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', challenge);
    url.searchParams.set('code_challenge_method', 'S256');
    // A refresh token (offline), asked for again on every consent so that a reconnection gets one too.
    url.searchParams.set('access_type', 'offline');
    url.searchParams.set('prompt', 'consent');
    return url.toString();
  }

  async function exchange(code: string, verifier: string): Promise<ProviderTokens> {
    return driveAdapter.exchangeCode(http, google.urls, {
      clientId: google.clientId,
      clientSecret: google.clientSecret,
      code,
      codeVerifier: verifier,
      redirectUri: deps.callbackUrl(),
    });
  }

  return {
    own,

    async start(owner, request) {
      const targets = await store.installationTargets(db, owner.installationId);
      const returnTo = targets ? admittedReturnTarget(request.returnTo, targets.returnOrigins) : null;
      if (returnTo === null) {
        throw new KgateError('invalid_request', 'returnTo is not a return origin or redirect URI registered on the product definition.', { field: 'returnTo' });
      }
      const services = [...new Set(request.services)].sort();
      const scopes = services.flatMap((service) => SERVICE_SCOPES[service]);
      const state = randomBytes(32).toString('base64url');
      const stateHash = sha256Hex(state);
      const { verifier, challenge } = pkce();
      const expiresAt = new Date(clock.now().getTime() + AUTHORIZATION_TTL_MS);
      await store.insertAuthorization(db, {
        stateHash,
        installationId: owner.installationId,
        customerAccountId: owner.customerAccountId,
        services,
        returnTo,
        clientState: request.state ?? null,
        verifierEnc: sealer.seal(verifier, verifierContext(stateHash)),
        expiresAt,
      });
      return { authorizationUrl: authorizationUrl(state, challenge, scopes), expiresAt, scopes };
    },

    async complete(params) {
      const refused = (reason: string): CallbackOutcome => ({ kind: 'refused', reason });
      if (typeof params.state !== 'string' || params.state.length === 0 || params.state.length > 200) return refused('The answer carries no valid state.');
      const stateHash = sha256Hex(params.state);
      // Taken (deleted) whatever follows: a state answers once.
      const started = await store.takeAuthorization(db, stateHash);
      if (!started || started.expiresAt.getTime() < clock.now().getTime()) return refused('This authorization was not started here, was already used, or has expired.');
      const targets = await store.installationTargets(db, started.installationId);
      if (!targets || targets.customerAccountId !== started.customerAccountId) return refused('The product installation that started this authorization is no longer active.');
      // Checked again: the product may have removed the target since the authorization started.
      const returnTo = admittedReturnTarget(started.returnTo, targets.returnOrigins);
      if (returnTo === null) return refused('The return target is no longer registered on the product definition.');
      const back = (outcome: Record<string, string | undefined>): CallbackOutcome => ({
        kind: 'redirect',
        location: returnUrl(returnTo, { ...outcome, state: started.clientState ?? undefined }),
      });
      if (params.error !== undefined) return back({ status: 'denied', error: safeProviderError(params.error) });
      if (typeof params.code !== 'string' || params.code.length === 0 || params.code.length > 2048) return back({ status: 'error', error: 'invalid_request' });
      let tokens: ProviderTokens;
      try {
        tokens = await exchange(params.code, sealer.open(started.verifierEnc, verifierContext(stateHash)));
      } catch {
        // Which failure it was stays here: the product learns only that the exchange did not succeed.
        return back({ status: 'error', error: 'exchange_failed' });
      }
      const id = await store.connectionIdFor(db, { newId: newId(), installationId: started.installationId, customerAccountId: started.customerAccountId });
      const row = { id, installationId: started.installationId, customerAccountId: started.customerAccountId };
      const grant = sealGrant(sealer, row, tokens);
      await store.storeGrant(db, id, grant);
      const services = grantedServices(grant.scopes);
      return back({
        status: 'connected',
        connectionId: id,
        services: (Object.keys(services) as ConnectionService[]).filter((service) => services[service]).join(','),
      });
    },

    list: async (owner) => (await store.listConnections(db, owner.installationId)).map(presentConnection),
    get: async (owner, connectionId) => presentConnection(await own(owner, connectionId)),

    async disconnect(owner, connectionId) {
      const connection = await own(owner, connectionId);
      if (connection.status === 'active' && connection.accessTokenEnc) {
        const accessToken = sealer.open(connection.accessTokenEnc, tokenContext(connection, 'access'));
        const refreshToken = connection.refreshTokenEnc ? sealer.open(connection.refreshTokenEnc, tokenContext(connection, 'refresh')) : null;
        // Best effort: the tokens are dropped here whatever Google answers.
        await driveAdapter.revoke(http, google.urls, { clientId: google.clientId, clientSecret: google.clientSecret, accessToken, refreshToken }).catch(() => undefined);
      }
      await store.revokeConnection(db, connection.id, 'Disconnected by the product.');
      return presentConnection((await store.findConnection(db, connection.id))!);
    },
  };
}
