import type { Database } from '../../../db/port.ts';
import { systemClock, type Clock } from '../../../kernel/clock.ts';
import { decodeCursor, encodeCursor } from '../../../kernel/cursor.ts';
import { KgateError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import { MAX_RUBRIC_PAGE, type RubricContent, type RubricReviewMark, type RubricSummary, type RubricVersion } from './contract.ts';
import * as store from './store.ts';

/** Who drafts: the installation's service principal, of its organization. */
export interface RubricAuthor {
  organizationId: string;
  installationId: string;
  principalId: string;
  principalName: string;
}

/** The metered call a version comes from. */
export interface RubricCall {
  idempotencyKey: string;
  requestId: string;
}

/** A rubric with its latest shown versions, newest first. */
export interface RubricWithVersions {
  rubric: RubricSummary;
  versions: RubricVersion[];
  /** Older versions exist than `versions` holds. */
  truncated: boolean;
}

/** An installation of an account with its rubrics, for the workspace page. */
export interface InstallationRubrics {
  installationId: string;
  productName: string;
  status: string;
  rubrics: RubricWithVersions[];
  /** More rubrics exist than the page shows. */
  truncated: boolean;
}

/** Most installations, rubrics per installation and versions per rubric the page shows. */
export const PAGE_INSTALLATIONS = 20;
/** See PAGE_INSTALLATIONS. */
export const PAGE_RUBRICS = 20;
/** See PAGE_INSTALLATIONS. */
export const PAGE_VERSIONS = 10;
/** Most versions of one rubric a read answers (the latest ones). */
export const MAX_VERSIONS_READ = 50;

/** Rubric drafts of product installations (docs/education.md, "Rubric drafts"). */
export interface EducationRubricsService {
  /** The latest shown version of an installation's rubric (a new draft's starting point); not_found otherwise. */
  startingPoint(installationId: string, rubricId: string): Promise<{ version: number; content: RubricContent }>;
  /**
   * Stores a checked draft as the next version (a new rubric when `rubricId` is undefined) and answers its id and
   * number. Called inside the metered work, so a store that fails fails the call.
   */
  storeDraft(author: RubricAuthor, call: RubricCall, draft: { rubricId?: string; basedOnVersion: number | null; content: RubricContent }): Promise<{ rubricId: string; version: number }>;
  /** Records the settled ledger row of the version a key drafted, which makes the version shown. */
  linkLedger(principalId: string, idempotencyKey: string, ledgerId: string): Promise<void>;
  /** A page of the installation's rubrics, most recently changed first. */
  listRubrics(installationId: string, page: { limit: number; cursor?: string | undefined }): Promise<{ items: RubricSummary[]; nextCursor: string | null }>;
  /** One rubric of the installation with its latest MAX_VERSIONS_READ versions; not_found for any other id. */
  getRubric(installationId: string, rubricId: string): Promise<RubricWithVersions>;
  /** The rubrics of the installations the account installed (bounded), for its page. */
  rubricsOfAccount(accountId: string): Promise<InstallationRubrics[]>;
  /**
   * A person of the installing account marks a version; `expected` is the mark the form was made with. not_found
   * for anyone else or any other version; conflict when the mark changed since (a stale form). Applies nothing.
   */
  markVersion(accountId: string, target: { rubricId: string; version: number; mark: RubricReviewMark; expected: RubricReviewMark | null }): Promise<void>;
}

const isCursor = (value: unknown): value is store.RubricCursor =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as store.RubricCursor).updatedAt === 'string' &&
  !Number.isNaN(Date.parse((value as store.RubricCursor).updatedAt)) &&
  typeof (value as store.RubricCursor).id === 'string' &&
  /^[0-9a-f-]{36}$/i.test((value as store.RubricCursor).id);

const notFound = () => new KgateError('not_found', 'No such rubric.');

/** Wires the rubric drafts over one database. */
export function createEducationRubricsService(db: Database, clock: Clock = systemClock): EducationRubricsService {
  const getRubric = async (installationId: string, rubricId: string): Promise<RubricWithVersions> => {
    const found = await store.selectRubric(db, installationId, rubricId, MAX_VERSIONS_READ);
    if (!found) throw notFound();
    return found;
  };
  return {
    async startingPoint(installationId, rubricId) {
      const { versions } = await getRubric(installationId, rubricId);
      const latest = versions[0]!;
      return { version: latest.version, content: latest.content };
    },

    async storeDraft(author, call, draft) {
      const at = clock.now();
      const rubricId = draft.rubricId ?? newId(at.getTime());
      const row = { ...author, rubricId, basedOnVersion: draft.basedOnVersion, content: draft.content, ...call, at };
      const version = await db.transaction((tx) => store.insertVersion(tx, row, draft.rubricId === undefined));
      return { rubricId, version };
    },

    linkLedger: (principalId, idempotencyKey, ledgerId) => store.linkLedger(db, principalId, idempotencyKey, ledgerId),

    async listRubrics(installationId, page) {
      const limit = Math.min(Math.max(1, page.limit), MAX_RUBRIC_PAGE);
      const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor, isCursor);
      const rows = await store.selectRubrics(db, installationId, limit + 1, after);
      const items = rows.slice(0, limit);
      const last = items.at(-1);
      return { items, nextCursor: rows.length > limit && last ? encodeCursor({ updatedAt: last.updatedAt, id: last.rubricId }) : null };
    },

    getRubric,

    async rubricsOfAccount(accountId) {
      const installations = await store.selectAccountInstallations(db, accountId, PAGE_INSTALLATIONS);
      const out: InstallationRubrics[] = [];
      for (const installation of installations) {
        const page = await store.selectRubrics(db, installation.installationId, PAGE_RUBRICS + 1, undefined);
        const summaries = page.slice(0, PAGE_RUBRICS);
        const versions = summaries.length === 0 ? new Map<string, { versions: RubricVersion[]; truncated: boolean }>() : await store.selectLatestVersions(db, summaries.map((s) => s.rubricId), PAGE_VERSIONS);
        const rubrics: RubricWithVersions[] = summaries.flatMap((rubric) => {
          const found = versions.get(rubric.rubricId);
          return found ? [{ rubric, ...found }] : [];
        });
        out.push({ ...installation, rubrics, truncated: page.length > PAGE_RUBRICS });
      }
      return out;
    },

    async markVersion(accountId, target) {
      const outcome = await store.markVersion(db, accountId, { ...target, at: clock.now() });
      if (outcome === 'not_found') throw new KgateError('not_found', 'No such rubric version.');
      if (outcome === 'stale') throw new KgateError('conflict', 'The version was marked by someone else since this page was loaded; reload to see its mark.');
    },
  };
}
