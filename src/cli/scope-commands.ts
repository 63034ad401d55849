import { parseArgs } from 'node:util';
import type { Services } from '../app/services.ts';
import type { Audience, ContextScope, ScopeDefinition } from '../domains/scopes/index.ts';
import { WorkspaceRoleSchema } from '../domains/workspaces/index.ts';
import { KgateError } from '../kernel/errors.ts';
import type { Actor } from '../kernel/principal.ts';
import { out } from './console.ts';
import { operatorFor, withRuntime } from './runtime.ts';
import { UsageError } from './usage-error.ts';

const OPTIONS = {
  mapping: { type: 'string' },
  id: { type: 'string' },
  name: { type: 'string' },
  prefix: { type: 'string', multiple: true },
  tag: { type: 'string', multiple: true },
  'minimum-role': { type: 'string' },
  agents: { type: 'boolean' },
  'clear-prefixes': { type: 'boolean' },
  'clear-tags': { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

type Values = ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS; allowNegative: true }>>['values'];

/** The options each action takes besides --mapping and --json. */
const ACCEPTED: Record<string, ReadonlyArray<keyof Values>> = {
  list: [],
  create: ['name', 'prefix', 'tag', 'minimum-role', 'agents', 'dry-run'],
  update: ['id', 'name', 'prefix', 'tag', 'minimum-role', 'agents', 'clear-prefixes', 'clear-tags', 'dry-run'],
  delete: ['id', 'dry-run'],
};

/** The arguments of one action, checked: a mistake is a UsageError (exit 2) before any database is opened. */
function parse(action: string | undefined, args: string[]): { action: string; values: Values } {
  if (action === undefined || !(action in ACCEPTED)) throw new UsageError(`unknown scopes command: ${action ?? '(none)'}; use list, create, update or delete`);
  const { values, positionals } = parseArgs({ args, options: OPTIONS, allowNegative: true, allowPositionals: true });
  if (positionals.length > 0) throw new UsageError(`kgate scopes ${action} takes no arguments besides options: ${positionals.join(' ')}`);
  if (!values.mapping) throw new UsageError(`kgate scopes ${action} needs --mapping ID`);
  const accepted = ACCEPTED[action]!;
  const misplaced = (Object.keys(values) as Array<keyof Values>).filter((key) => key !== 'mapping' && key !== 'json' && !accepted.includes(key));
  if (misplaced.length > 0) throw new UsageError(`kgate scopes ${action} does not take ${misplaced.map((key) => `--${key}`).join(', ')}`);
  if ((action === 'update' || action === 'delete') && !values.id) throw new UsageError(`kgate scopes ${action} needs --id SCOPE (kgate scopes list shows the ids)`);
  if (action === 'create' && values.name === undefined) throw new UsageError('kgate scopes create needs --name');
  if (args.includes('--agents') && args.includes('--no-agents')) throw new UsageError('choose --agents or --no-agents');
  if (values['clear-prefixes'] && values.prefix) throw new UsageError('choose --prefix or --clear-prefixes');
  if (values['clear-tags'] && values.tag) throw new UsageError('choose --tag or --clear-tags');
  const role = values['minimum-role'];
  if (role !== undefined && !WorkspaceRoleSchema.safeParse(role).success) throw new UsageError('--minimum-role takes owner, admin, editor or viewer');
  if (action === 'update' && !['name', 'prefix', 'tag', 'minimum-role', 'agents', 'clear-prefixes', 'clear-tags'].some((key) => values[key as keyof Values] !== undefined)) {
    throw new UsageError('kgate scopes update needs something to change: --name, --prefix, --tag, --minimum-role, --agents or --no-agents, --clear-prefixes or --clear-tags');
  }
  return { action, values };
}

function audienceOf(values: Values, base: Audience): Audience {
  return {
    minimumRole: values['minimum-role'] === undefined ? base.minimumRole : WorkspaceRoleSchema.parse(values['minimum-role']),
    agents: values.agents ?? base.agents,
  };
}

/** What `update` sends: the scope's definition with what the options change; the rest is kept as it is. */
function changedDefinition(values: Values, current: ContextScope): ScopeDefinition {
  return {
    name: values.name ?? current.name,
    pathPrefixes: values['clear-prefixes'] ? [] : (values.prefix ?? current.pathPrefixes),
    tags: values['clear-tags'] ? [] : (values.tag ?? current.tags),
    audience: audienceOf(values, current.audience),
  };
}

/** Who may read through a scope, in words. */
function audienceText(audience: Audience): string {
  const who = audience.minimumRole === 'viewer' ? 'every member' : audience.minimumRole === 'owner' ? 'owners' : `${audience.minimumRole}s and up`;
  return `${who}, ${audience.agents ? 'also through tokens and agents' : 'signed-in people only'}`;
}

function scopeLines(scope: ContextScope, id: string | null): string[] {
  return [
    `${scope.name}${id ? ` (${id})` : ''}`,
    `  folders:  ${scope.pathPrefixes.length > 0 ? scope.pathPrefixes.join(', ') : 'any'}`,
    `  tags:     ${scope.tags.length > 0 ? scope.tags.join(', ') : 'any'}`,
    `  audience: ${audienceText(scope.audience)}`,
  ];
}

async function run(services: Services, actor: Actor, action: string, values: Values): Promise<{ value: unknown; human: string }> {
  const { scopes } = services;
  const mappingId = values.mapping!;
  const dryRun = values['dry-run'] ?? false;
  const options = { dryRun };
  // As the REST API answers: a preview of a creation has no id yet.
  const changed = (done: string, scope: ContextScope, id: string | null) => ({
    value: { dryRun, applied: !dryRun, scope: id === null ? { ...scope, id: null, createdAt: null, updatedAt: null } : scope },
    human: [dryRun ? `Would be ${done.toLowerCase()} (nothing changed):` : `${done}:`, ...scopeLines(scope, id)].join('\n'),
  });
  switch (action) {
    case 'list': {
      const listed = await scopes.listManaged(actor, mappingId);
      const human = listed.length === 0 ? 'No context scopes.' : listed.flatMap((scope) => scopeLines(scope, scope.id)).join('\n');
      return { value: { view: 'managed', scopes: listed, truncated: false }, human };
    }
    case 'create': {
      const definition = { name: values.name!, pathPrefixes: values.prefix ?? [], tags: values.tag ?? [], audience: audienceOf(values, { minimumRole: 'viewer', agents: true }) };
      const scope = await scopes.create(actor, mappingId, definition, options);
      return changed('Created', scope, dryRun ? null : scope.id);
    }
    case 'update': {
      // What the options leave out is kept: read, then replaced whole (the last of two concurrent changes wins).
      const current = (await scopes.listManaged(actor, mappingId)).find((scope) => scope.id === values.id);
      if (!current) throw new KgateError('not_found', 'No such context scope for this mapping.');
      return changed('Updated', await scopes.update(actor, mappingId, current.id, changedDefinition(values, current), options), current.id);
    }
    default: {
      const scope = await scopes.remove(actor, mappingId, values.id!, options);
      return changed('Deleted', scope, scope.id);
    }
  }
}

/** `kgate scopes list|create|update|delete --mapping ID ...`: a mapping's context scopes, managed as its owner. */
export async function scopesCommand(action: string | undefined, args: string[]): Promise<number> {
  const parsed = parse(action, args);
  const result = await withRuntime('kgate scopes', async ({ services }) => run(services, await operatorFor(services, parsed.values.mapping!), parsed.action, parsed.values));
  out(parsed.values.json ? `${JSON.stringify(result.value)}\n` : `${result.human}\n`);
  return 0;
}
