import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { Actor } from '../../kernel/principal.ts';
import type { KnowledgeService } from '../knowledge/index.ts';
import type { AuthorizedScope } from '../scopes/index.ts';
import { roleAllows } from '../workspaces/index.ts';
import { buildSections, stalenessOf, type BuiltSection } from './build.ts';
import { SECTION_KINDS, SECTION_TITLES, type Section, type SectionKind } from './contract.ts';
import * as store from './store.ts';

/** A scope's living brief (docs/synthesis.md): sections built deterministically from its knowledge records. */
export interface SynthesisService {
  /**
   * The sections of the scope (all, or those named), each as last built with its review state, compared with the
   * records as they are now: a section whose records or cited revisions changed is `stale`. Reading never builds.
   */
  read(authorized: AuthorizedScope, sections?: readonly SectionKind[]): Promise<Section[]>;
  /**
   * Builds sections again from the records as they are now (members whose role writes the vault). A section whose
   * fingerprint is unchanged is left as it is, acceptance included; any other becomes a new draft.
   */
  rebuild(actor: Actor, authorized: AuthorizedScope, sections?: readonly SectionKind[]): Promise<Section[]>;
  /**
   * A person accepts the build they saw (`fingerprint`) of a section: only a signed-in person (a web session), never
   * a token or a connected client (spec 4.3 rule 8), whose role writes the vault. Refused (`conflict`) when the
   * section was rebuilt since, or is stale now.
   */
  accept(actor: Actor, authorized: AuthorizedScope, section: SectionKind, fingerprint: string): Promise<Section>;
}

/** A section as read: the stored build against the records now. */
function present(section: SectionKind, row: store.SectionRow | undefined, now: BuiltSection): Section {
  if (!row) return { section, title: SECTION_TITLES[section], state: 'unbuilt', trusted: false, build: null, currentFingerprint: now.fingerprint, staleness: null };
  const stale = row.fingerprint !== now.fingerprint;
  const accepted = row.acceptedAt === null ? null : { at: row.acceptedAt, by: row.acceptedBy };
  return {
    section,
    title: SECTION_TITLES[section],
    state: stale ? 'stale' : accepted ? 'accepted' : 'draft',
    trusted: !stale && accepted !== null,
    build: {
      number: row.build,
      fingerprint: row.fingerprint,
      method: 'deterministic',
      builtAt: row.builtAt,
      builtBy: row.builtBy,
      accepted,
      text: row.body.text,
      items: row.body.items,
      truncated: row.body.truncated,
    },
    currentFingerprint: now.fingerprint,
    staleness: stale ? stalenessOf(row.body.items, now.body.items) : null,
  };
}

const requested = (sections: readonly SectionKind[] | undefined): SectionKind[] => SECTION_KINDS.filter((s) => sections === undefined || sections.includes(s));

function mayWrite(authorized: AuthorizedScope): void {
  if (!roleAllows(authorized.role, 'vault.write')) {
    throw new KgateError('forbidden', 'Your role in this workspace does not allow building or accepting the brief.', { permission: 'vault.write' });
  }
}

/** Builds the synthesis service; sections are read from `knowledge`, `clock` dates builds and acceptances. */
export function createSynthesisService(db: Database, clock: Clock, knowledge: KnowledgeService): SynthesisService {
  return {
    async read(authorized, sections) {
      const kinds = requested(sections);
      const [rows, now] = await Promise.all([store.loadSections(db, authorized.scope.id), buildSections(knowledge, authorized.slice, kinds)]);
      return kinds.map((kind) => present(kind, rows.get(kind), now.get(kind)!));
    },

    async rebuild(actor, authorized, sections) {
      mayWrite(authorized);
      const kinds = requested(sections);
      const now = await buildSections(knowledge, authorized.slice, kinds);
      const scopeId = authorized.scope.id;
      const rows = await db.transaction(async (tx) => {
        const stored = await store.loadSections(tx, scopeId, true);
        const at = clock.now();
        for (const kind of kinds) {
          const built = now.get(kind)!;
          const row = stored.get(kind);
          if (row?.fingerprint === built.fingerprint) continue;
          await store.storeBuild(tx, { scopeId, section: kind, build: (row?.build ?? 0) + 1, fingerprint: built.fingerprint, body: built.body, by: actor.accountId, at });
        }
        return store.loadSections(tx, scopeId);
      });
      return kinds.map((kind) => present(kind, rows.get(kind), now.get(kind)!));
    },

    async accept(actor, authorized, section, fingerprint) {
      if (actor.credentialKind !== 'session') {
        throw new KgateError('forbidden', 'Only a signed-in person accepts a section of the brief, on the workspace page; an agent never can.');
      }
      mayWrite(authorized);
      const now = (await buildSections(knowledge, authorized.slice, [section])).get(section)!;
      const scopeId = authorized.scope.id;
      const row = await db.transaction(async (tx) => {
        const stored = (await store.loadSections(tx, scopeId, true)).get(section);
        if (!stored) throw new KgateError('conflict', 'This section has not been built yet: build it, read it, then accept it.');
        if (stored.fingerprint !== fingerprint) throw new KgateError('conflict', 'The section was rebuilt since you read it: read it again before accepting it.');
        if (stored.fingerprint !== now.fingerprint) throw new KgateError('conflict', 'The evidence of this section changed since it was built: rebuild it and read it again before accepting it.');
        if (stored.acceptedAt === null) {
          await store.storeAcceptance(tx, { scopeId, section, build: stored.build, fingerprint: stored.fingerprint, by: actor.accountId, at: clock.now() });
        }
        return (await store.loadSections(tx, scopeId)).get(section);
      });
      return present(section, row, now);
    },
  };
}
