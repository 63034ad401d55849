/**
 * How webhook deliveries reach the outside (implemented in src/app/webhook-http.ts over the guarded request). The
 * domain never opens sockets itself, so the address policy lives in one place and tests can trust a local receiver.
 */
export interface WebhookTransport {
  /**
   * Judges an endpoint URL before it is stored. Throws KgateError `endpoint_url_refused` for a URL that does not
   * parse, is not https, or whose host is (or resolves to any) non-public address unless configured otherwise.
   */
  check(url: string): Promise<void>;
  /**
   * Sends one POST and answers its status (any status: the caller decides what counts as delivered). Rejects with
   * KgateError `unavailable` whose `details.reason` is the guarded fetch's code (timeout, blocked_address, network,
   * too_large, redirect_refused, invalid_url). The response body is read within a bound and never handed back.
   */
  post(request: { url: string; headers: Record<string, string>; body: string }): Promise<{ status: number }>;
}
