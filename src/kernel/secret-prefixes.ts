/**
 * Prefixes of every secret kgate issues. Each credential kind takes its prefix from here, so that one list tells
 * what must never be logged or echoed (request ids, error details) and what secret scanners should look for.
 */
export const SECRET_PREFIXES = {
  personalAccessToken: 'kgp_',
  oauthAccessToken: 'kgat_',
  oauthRefreshToken: 'kgrt_',
  authorizationCode: 'kgac_',
  webSession: 'kgs_',
  runtimeAccessToken: 'kgrp_',
  runtimeClientSecret: 'kgcs_',
} as const;

const ANY_PREFIX = new RegExp(Object.values(SECRET_PREFIXES).join('|'), 'i');

/** True when a string carries something shaped like one of our secrets anywhere in it. */
export function mayContainSecret(value: string): boolean {
  return ANY_PREFIX.test(value);
}
