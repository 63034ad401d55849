import { parse } from 'hono/utils/cookie';

/**
 * The header that marks a request of kgate's WebMCP in-page adapter (spec 4.5: its name is ours to choose). A page
 * of another site cannot send it with the person's cookie: a custom header makes the browser ask first (a CORS
 * preflight), and kgate answers no preflight, so the request never leaves the browser.
 */
export const WEBMCP_HEADER = 'kgate-webmcp';
/** The value the adapter sends: the version of the bridge protocol. */
export const WEBMCP_HEADER_VALUE = '1';

/** The session-only endpoint for mixed atomic note transactions of first-party clients (spec 4.5: our path). */
export const SESSION_TRANSACTIONS_PATH = '/api/workspace/transactions';

/** The request headers the bridge reads. */
export interface BridgeRequest {
  header(name: string): string | undefined;
}

/**
 * Why a session-authenticated request may not be served, or undefined when it may (spec 4.5 and 7.11): it must
 * carry the WebMCP header, come from a trusted origin (exactly this gateway's own, from its base URL; a loopback
 * name on another port is another origin), and be same-origin or same-site as the browser reports it
 * (`Sec-Fetch-Site`; a browser that sends no such header must still send the matching Origin).
 */
export function bridgeRefusal(request: BridgeRequest, baseOrigin: string): string | undefined {
  if (request.header(WEBMCP_HEADER) !== WEBMCP_HEADER_VALUE) {
    return `A signed-in session is accepted here only from kgate's WebMCP adapter (the ${WEBMCP_HEADER}: ${WEBMCP_HEADER_VALUE} header).`;
  }
  const origin = request.header('origin');
  if (origin === undefined || origin !== baseOrigin) return 'A signed-in session is accepted here only from pages of this gateway (Origin).';
  const site = request.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'same-site') {
    return 'A signed-in session is accepted here only for same-origin or same-site requests.';
  }
  return undefined;
}

/** The value of the cookie `name` in a Cookie header, or undefined. */
export function cookieValue(cookieHeader: string | undefined, name: string): string | undefined {
  if (!cookieHeader) return undefined;
  return parse(cookieHeader, name)[name];
}
