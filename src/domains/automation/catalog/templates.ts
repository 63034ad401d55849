import type { TriggerCreate } from '../contract.ts';

/** A trigger as a template carries it: everything but the workspace, which the person creating it chooses. */
export type TemplateTrigger = Omit<TriggerCreate, 'workspaceId'>;

/** One version of a template. */
export interface TemplateVersion {
  version: number;
  description: string;
  trigger: TemplateTrigger;
}

/** A template: a trigger configuration to copy, in versions (the newest is the default download). */
export interface AutomationTemplate {
  id: string;
  title: string;
  versions: readonly TemplateVersion[];
}

// The mapping of a propose template is a placeholder: the nil UUID, which the person replaces with one of their own.
const YOUR_MAPPING = '00000000-0000-0000-0000-000000000000';

/** The templates the catalog serves, each version's trigger a valid TriggerCreate once given a workspace. */
export const TEMPLATES: readonly AutomationTemplate[] = [
  {
    id: 'form-to-note-proposal',
    title: 'Form submission to a note proposal',
    versions: [
      {
        version: 1,
        description: 'Each form.submitted event proposes a note with the submission; a person approves it. Replace mappingId with your hosted vault’s.',
        trigger: {
          name: 'Form submission to a note proposal',
          when: { eventType: 'form.submitted' },
          action: {
            kind: 'propose',
            mappingId: YOUR_MAPPING,
            title: 'Form submission {{event.subject}}',
            path: 'inbox/form-{{event.subject}}.md',
            content: '# Form submission {{event.subject}}\n\n{{event.data.body}}\n',
          },
        },
      },
      {
        version: 2,
        description:
          'As version 1, for one named form only (data.form), and the note records who sent it and when. Replace mappingId and the form name.',
        trigger: {
          name: 'Contact form to a note proposal',
          when: { eventType: 'form.submitted', conditions: [{ field: 'data.form', equals: 'contact' }] },
          action: {
            kind: 'propose',
            mappingId: YOUR_MAPPING,
            title: 'Contact form from {{event.data.name}}',
            path: 'inbox/contact-{{event.subject}}.md',
            content: '# Contact from {{event.data.name}}\n\nReceived {{event.occurredAt}} from {{event.source}}.\n\n{{event.data.message}}\n',
          },
        },
      },
    ],
  },
  {
    id: 'forward-events-to-webhook',
    title: 'Forward events to your webhooks',
    versions: [
      {
        version: 1,
        description: 'Every event is delivered, signed, to the workspace’s webhook endpoints that take its type.',
        trigger: { name: 'Forward every event', when: { eventType: '*' }, action: { kind: 'webhook' } },
      },
    ],
  },
  {
    id: 'daily-digest-schedule',
    title: 'Daily digest on a schedule',
    versions: [
      {
        version: 1,
        description: 'Once a day, a schedule run delivers a digest event to your webhook endpoints, which build the digest.',
        trigger: { name: 'Daily digest', when: { everyMinutes: 1440 }, action: { kind: 'webhook' } },
      },
    ],
  },
];
