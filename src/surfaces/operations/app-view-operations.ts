import { z } from 'zod';
import { KgateError } from '../../kernel/errors.ts';
import { WORKSPACE_HOME, eventsUrl, noteUrl, proposalsUrl, searchUrl, trashUrl, vaultUrl } from '../web/workspace-urls.ts';
import { NotePathSchema } from './fields.ts';
import { ACCOUNT_CREDENTIALS, READ_ONLY_TOOL, defineOperation } from './operation.ts';

/** The workspace views a deep link can open (docs/workspace.md). */
export const APP_VIEWS = ['vaults', 'vault', 'note', 'search', 'events', 'trash', 'proposals'] as const;

const OpenAppViewInput = z.strictObject({
  view: z.enum(APP_VIEWS).describe('vaults: every vault; vault: its notes; note: one note; search: a search; events: provenance events; trash: deleted notes; proposals: what agents proposed, for a person to review'),
  mappingId: z.uuid().optional().describe('The vault, for every view but vaults'),
  path: NotePathSchema.optional().describe('The note, for the note view'),
  query: z.string().trim().min(1).max(500).optional().describe('The search, for the search view'),
});

/** What each view needs besides its name. */
function requireFields(input: z.output<typeof OpenAppViewInput>): { mappingId?: string; path?: string; query?: string } {
  const missing = (field: string) => new KgateError('invalid_request', `The ${input.view} view needs ${field}.`, { field });
  if (input.view === 'vaults') return {};
  if (!input.mappingId) throw missing('mappingId');
  if (input.view === 'note' && !input.path) throw missing('path');
  if (input.view === 'search' && !input.query) throw missing('query');
  return input;
}

/**
 * A deep link to a workspace view, for a person to open (`open_app_view`). It is checked against what the caller
 * may see, from server records: a vault of someone else, or a note that is not there, answers `not_found` exactly
 * as one that does not exist. The link carries no credential; whoever opens it signs in as themselves.
 */
export const openAppView = defineOperation({
  id: 'openAppView',
  summary: 'Link to a workspace view',
  description:
    'Returns a link to a view of the kgate workspace, where a person reads notes, reviews what agents changed and ' +
    'restores from the trash: the vault list, a vault, a note, a search, the events, the trash or the proposals of a vault.',
  tags: ['workspace'],
  credentials: ACCOUNT_CREDENTIALS,
  scope: 'mcp:read',
  allowance: 'operation',
  idempotency: 'none',
  input: OpenAppViewInput,
  output: z.object({
    url: z.string().describe('The absolute address of the view; the person signs in to open it'),
    view: z.enum(APP_VIEWS),
  }),
  errors: ['invalid_request', 'invalid_path', 'not_found'],
  mcp: {
    name: 'open_app_view',
    title: 'Open a workspace view',
    advice: 'Give the link to the person when they should see or review something themselves, for example a note you changed.',
    annotations: READ_ONLY_TOOL,
  },
  async run(ctx, input) {
    const { mappingId, path, query } = requireFields(input);
    const { accountId, actor } = ctx.principal;
    let address = WORKSPACE_HOME;
    if (mappingId !== undefined) {
      await ctx.services.vaults.resolveMapping(accountId, mappingId, 'read');
      if (input.view === 'note') {
        const note = await ctx.services.notes.readNote(actor, mappingId, path!);
        address = noteUrl(mappingId, note.path);
      } else if (input.view === 'search') address = searchUrl(mappingId, query!);
      else if (input.view === 'events') address = eventsUrl(mappingId);
      else if (input.view === 'trash') address = trashUrl(mappingId);
      else if (input.view === 'proposals') address = proposalsUrl(mappingId);
      else address = vaultUrl(mappingId);
    }
    return { url: new URL(address, ctx.services.links.baseUrl).toString(), view: input.view };
  },
});
