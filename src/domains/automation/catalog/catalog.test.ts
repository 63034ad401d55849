import { describe, expect, it } from 'vitest';
import { KgateError } from '../../../kernel/errors.ts';
import { TriggerCreateSchema } from '../contract.ts';
import { automationCatalog, bridgeAdapter, listTemplates, templateDownload, templateSummary } from './index.ts';

const WORKSPACE = '7f1c2a9e-3b4d-4e5f-8a6b-1c2d3e4f5a6b';

function codeOf(thunk: () => unknown): string | undefined {
  try {
    thunk();
  } catch (error) {
    return error instanceof KgateError ? error.code : 'not a KgateError';
  }
  return undefined;
}

describe('the automation catalog', () => {
  it('names the contract, its served versions, the event schema, emitted types, bridges and templates', () => {
    const catalog = automationCatalog();
    expect(catalog.contract).toEqual({ name: 'kgate.automation/1', version: 1, servedVersions: [1] });
    expect(catalog.eventInput.jsonSchema).toMatchObject({ type: 'object', additionalProperties: false });
    expect(catalog.eventInput.cloudEvents.find((r) => r.attribute === 'id')?.note).toContain('not the idempotency key');
    expect(catalog.emittedEventTypes).toContain('proposal.created');
    expect(catalog.bridges).toEqual(['n8n', 'zapier', 'make', 'power-automate', 'office-graph']);
    expect(catalog.templates.map((t) => t.id)).toEqual(['form-to-note-proposal', 'forward-events-to-webhook', 'daily-digest-schedule']);
  });

  it('describes every bridge; the office graph bridge is an ingestion boundary that never holds provider credentials', () => {
    for (const id of automationCatalog().bridges) {
      const adapter = bridgeAdapter(id);
      expect(adapter.authentication).toContain('OAuth tokens are refused');
      expect(adapter.neverReceives.join(' ')).toContain('provider credentials');
    }
    const graph = bridgeAdapter('office-graph');
    expect(graph.kind).toBe('ingestion-bridge');
    expect(graph.routes).toEqual(['POST /events']);
    expect(graph.idempotencyKey).toContain('subscription id');
    expect(codeOf(() => bridgeAdapter('nope'))).toBe('not_found');
  });

  it('downloads every version of every template as a trigger that parses once given a workspace, with no credential', () => {
    for (const summary of listTemplates()) {
      for (const version of [...summary.versions, undefined]) {
        const download = templateDownload(summary.id, version);
        expect(download.format).toBe('kgate.automation.template/1');
        expect(download.version).toBe(version ?? summary.latest);
        expect(download.notes).toContain('not execution authority');
        expect(TriggerCreateSchema.safeParse({ ...download.trigger, workspaceId: WORKSPACE }).success).toBe(true);
        expect(JSON.stringify(download)).not.toMatch(/token|secret|password|whsec_/i);
      }
    }
    expect(templateDownload('form-to-note-proposal', 1).version).toBe(1);
    expect(templateDownload('form-to-note-proposal').version).toBe(2);
  });

  it('answers not_found for an unknown template or version, and a download cannot change the catalog', () => {
    expect(codeOf(() => templateDownload('nope'))).toBe('not_found');
    expect(codeOf(() => templateDownload('form-to-note-proposal', 3))).toBe('not_found');
    expect(codeOf(() => templateSummary('nope'))).toBe('not_found');
    const download = templateDownload('forward-events-to-webhook');
    download.trigger.name = 'changed';
    expect(templateDownload('forward-events-to-webhook').trigger.name).toBe('Forward every event');
  });
});
