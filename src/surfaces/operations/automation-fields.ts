import type { AutomationService, WebhooksService } from '../../domains/automation/index.ts';
import type { CredentialKind } from '../../kernel/principal.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { OperationContext } from './operation.ts';

// What every operation of the automation gateway shares (docs/automation.md): personal access tokens and the
// signed-in session only (the REST surface refuses OAuth tokens on top), the Developer REST API's allowance, served
// under /api/dev/automation and never as MCP tools.

/** The credentials the automation gateway accepts. */
export const AUTOMATION_CREDENTIALS: readonly CredentialKind[] = ['personal_access_token', 'session'];

/** The fields every automation operation declares alike. */
export const AUTOMATION_READ = { tags: ['automation'], credentials: AUTOMATION_CREDENTIALS, scope: 'mcp:read', allowance: 'operation', idempotency: 'none' } as const;
/** As AUTOMATION_READ, for an operation that changes something. */
export const AUTOMATION_WRITE = { ...AUTOMATION_READ, scope: 'mcp:write' } as const;

const NOT_CONFIGURED = 'The automation gateway is not configured here.';

/** The automation service, or `unavailable` where the gateway is built without it. */
export function automationOf(ctx: OperationContext): AutomationService {
  if (!ctx.services.automation) throw new KgateError('unavailable', NOT_CONFIGURED);
  return ctx.services.automation;
}

/** The webhooks service, or `unavailable` where the gateway is built without it. */
export function webhooksOf(ctx: OperationContext): WebhooksService {
  if (!ctx.services.webhooks) throw new KgateError('unavailable', NOT_CONFIGURED);
  return ctx.services.webhooks;
}
