/** Webhook endpoints, signing and delivery of the automation gateway (docs/automation.md, "Webhooks"). */
export { createWebhooksService, RETRY_SCHEDULE_MS } from './service.ts';
export type { WebhooksDependencies } from './service.ts';
export type { WebhookTransport } from './port.ts';
