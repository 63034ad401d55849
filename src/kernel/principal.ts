/** The plan an account is on. */
export type Plan = 'free' | 'developer' | 'team';

/** Whether an account may act at all. */
export type AccountStatus = 'active' | 'suspended';

/**
 * How a principal proved who it is; recorded with every provenance event. `automation`: the automation gateway's bounded executor, acting for the person
 * who approved an automation proposal (that person's access is checked again when it acts; docs/automation.md).
 */
export type CredentialKind = 'personal_access_token' | 'oauth' | 'session' | 'service_principal' | 'operator' | 'automation';

/**
 * Who is acting, resolved from server-held records on every request (never from what the caller claims). An
 * operator is a person at the server's own command line (`kgate import`, `kgate admin ...`).
 */
export interface Actor {
  readonly accountId: string;
  readonly credentialKind: CredentialKind;
  /** The id of the credential used (token id, grant id); absent for the operator. */
  readonly credentialId?: string;
  /** A label of the client software, when known (MCP clientInfo, OAuth client name, "kgate-cli"). */
  readonly client?: string;
}
