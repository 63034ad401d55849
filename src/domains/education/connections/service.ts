/**
 * Delegated provider connections of the Product Runtime (spec 4.7, docs/education.md): the OAuth lifecycle
 * (connections.manage) and the bounded Drive and Classroom round trips (connections.execute), for a product's
 * installation acting for its customer. Without Google's OAuth application or a token key configured, every call
 * answers `unavailable` and nothing is stored.
 */
import type { Database } from '../../../db/port.ts';
import type { Clock } from '../../../kernel/clock.ts';
import { KgateError } from '../../../kernel/errors.ts';
import type { ProviderHttp, TokenSealer } from '../../providers/index.ts';
import { createCallMaker } from './calls.ts';
import { createClassroomRoundTrips, type ClassroomRoundTrips } from './classroom-round-trips.ts';
import type { ConnectionOwner, ConnectionView, GoogleConnectionSettings } from './contract.ts';
import { createDriveRoundTrips, type DriveRoundTrips } from './drive.ts';
import { createConnectionLifecycle, type CallbackOutcome, type CallbackParams, type StartedConnection, type StartRequest } from './lifecycle.ts';
import * as store from './store.ts';
import { createConnectionTokens } from './tokens.ts';

/** What the service is built from (the composition root). */
export interface EducationConnectionsDeps {
  db: Database;
  clock: Clock;
  /** Bounded HTTP to Google (app/provider-http.ts). */
  http: ProviderHttp;
  /** Seals tokens at rest (KGATE_PROVIDER_TOKEN_KEYS); undefined: nothing can be connected. */
  sealer: TokenSealer | undefined;
  /** Google's OAuth application and addresses; undefined: nothing can be connected. */
  google: GoogleConnectionSettings | undefined;
  /** `{base}/api/product/v1/connections/google/oauth/callback`, the redirect URI registered with Google. */
  callbackUrl: () => string;
  /** Waits between retries of provider calls (tests skip them). */
  sleep?: (ms: number) => Promise<void>;
}

/** Delegated connections: the lifecycle, and the round trips to Drive and Classroom. */
export interface EducationConnectionsService {
  /** Whether Google can be connected on this server. */
  available(): boolean;
  start(owner: ConnectionOwner, request: StartRequest): Promise<StartedConnection>;
  /** Completes an authorization on Google's redirect (the callback route; no runtime credential). */
  complete(params: CallbackParams): Promise<CallbackOutcome>;
  list(owner: ConnectionOwner): Promise<ConnectionView[]>;
  get(owner: ConnectionOwner, connectionId: string): Promise<ConnectionView>;
  disconnect(owner: ConnectionOwner, connectionId: string): Promise<ConnectionView>;
  /** Drive: retry-safe creates and updates, bounded imports. */
  drive: DriveRoundTrips;
  /** Classroom: the teacher's active courses, rosters, retry-safe assignments, submission attachment metadata. */
  classroom: ClassroomRoundTrips;
  /** Deletes started authorizations past their expiry and write intents older than two days (maintenance). */
  purgeExpired(): Promise<number>;
}

// Intents outlive the idempotency keys they protect (24 hours) by a day.
const INTENT_RETENTION_MS = 2 * 24 * 60 * 60 * 1000;

/** Builds the service. */
export function createEducationConnectionsService(deps: EducationConnectionsDeps): EducationConnectionsService {
  const { db, clock, sealer, google } = deps;
  const unavailable = () => new KgateError('unavailable', 'Delegated Google connections are not configured on this server.', { provider: 'google' });
  if (!sealer || !google) {
    const refuse = () => Promise.reject(unavailable());
    return {
      drive: { createFile: refuse, updateFile: refuse, importFolder: refuse },
      classroom: { listCourses: refuse, listStudents: refuse, createAssignment: refuse, listSubmissions: refuse },
      available: () => false,
      start: refuse,
      complete: () => Promise.resolve({ kind: 'refused', reason: 'Delegated Google connections are not configured on this server.' }),
      list: refuse,
      get: refuse,
      disconnect: refuse,
      purgeExpired: () => Promise.resolve(0),
    };
  }
  const lifecycle = createConnectionLifecycle({ db, clock, http: deps.http, sealer, google, callbackUrl: deps.callbackUrl });
  const tokens = createConnectionTokens({ db, clock, http: deps.http, sealer, google });
  const calls = createCallMaker({ clock, http: deps.http, google, lifecycle, tokens, ...(deps.sleep ? { sleep: deps.sleep } : {}) });
  return {
    available: () => true,
    start: (owner, request) => lifecycle.start(owner, request),
    complete: (params) => lifecycle.complete(params),
    list: (owner) => lifecycle.list(owner),
    get: (owner, id) => lifecycle.get(owner, id),
    disconnect: (owner, id) => lifecycle.disconnect(owner, id),
    drive: createDriveRoundTrips({ db, calls }),
    classroom: createClassroomRoundTrips({ db, calls }),
    purgeExpired: () => store.purgeExpired(db, clock.now(), new Date(clock.now().getTime() - INTENT_RETENTION_MS)),
  };
}
