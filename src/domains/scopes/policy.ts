import { KgateError } from '../../kernel/errors.ts';
import type { CredentialKind } from '../../kernel/principal.ts';
import { normalizeNotePath } from '../../kernel/vault-path.ts';
import { tagName } from '../markdown/index.ts';
import type { WorkspaceRole } from '../workspaces/index.ts';
import { AudienceSchema, MAX_SCOPE_FILTERS, MAX_SCOPE_NAME_LENGTH, type Audience, type ScopeDefinition } from './contract.ts';

const RANK: Readonly<Record<WorkspaceRole, number>> = { owner: 4, admin: 3, editor: 2, viewer: 1 };

/** True when a member of `role`, proving who they are with `credential`, is in the audience. */
export function inAudience(audience: Audience, role: WorkspaceRole, credential: CredentialKind): boolean {
  if (RANK[role] < RANK[audience.minimumRole]) return false;
  // A person at a web page is a person; every other credential may be an agent acting for one (spec 4.3 rule 8).
  return audience.agents || credential === 'session';
}

/** A folder prefix as stored: vault-relative, `/`-separated, ending in `/`. */
function normalizePrefix(prefix: string, index: number): string {
  const trimmed = prefix.trim().replace(/\/+$/, '');
  if (trimmed === '') throw new KgateError('invalid_request', `pathPrefixes[${index}] is empty; omit pathPrefixes for the whole vault.`, { index });
  try {
    // A folder is checked as a note path under it would be (no `..`, not absolute, no control characters), and
    // kept in the same canonical form (NFC) as stored paths, so that it compares with them.
    return normalizeNotePath(`${trimmed}/x.md`).slice(0, -'x.md'.length);
  } catch {
    throw new KgateError('invalid_request', `pathPrefixes[${index}] is not a folder of the vault.`, { index });
  }
}

/** A definition as stored: the name trimmed, prefixes and tags normalized, sorted and unique; invalid ones refused. */
export function normalizeDefinition(definition: ScopeDefinition): ScopeDefinition {
  const name = definition.name.trim();
  if (name.length === 0 || name.length > MAX_SCOPE_NAME_LENGTH) {
    throw new KgateError('invalid_request', `A scope's name has 1 to ${MAX_SCOPE_NAME_LENGTH} characters.`);
  }
  if (definition.pathPrefixes.length > MAX_SCOPE_FILTERS || definition.tags.length > MAX_SCOPE_FILTERS) {
    throw new KgateError('invalid_request', `A scope names at most ${MAX_SCOPE_FILTERS} path prefixes and ${MAX_SCOPE_FILTERS} tags.`);
  }
  const pathPrefixes = [...new Set(definition.pathPrefixes.map(normalizePrefix))].sort();
  const tags = [
    ...new Set(
      definition.tags.map((tag, index) => {
        const parsed = tagName(tag.trim());
        if (!parsed) throw new KgateError('invalid_request', `tags[${index}] is not a tag name.`, { index });
        return parsed.key;
      }),
    ),
  ].sort();
  // Checked here too, not only by the surfaces' schemas: the domain is the last word on what is stored.
  const audience = AudienceSchema.safeParse(definition.audience);
  if (!audience.success) throw new KgateError('invalid_request', "A scope's audience is a minimum role (owner, admin, editor, viewer) and whether agents may use it.");
  return { name, pathPrefixes, tags, audience: audience.data };
}
