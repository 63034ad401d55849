/**
 * Classroom round trips of delegated connections (connections.execute): the teacher's ACTIVE courses, a course's
 * roster without profile e-mails, retry-safe assignment creation, and bounded submission attachment metadata without
 * grades. Rosters, assignments and submissions are reached only in a course the connection's user teaches and that
 * is ACTIVE (`not_found` otherwise). There is no grading round trip, by design: grades stay with the teacher.
 *
 * Classroom has no idempotency key. Retry safety: under the request's Idempotency-Key an intent (course, title,
 * time) is recorded before the create; a retry whose intent has no result yet looks for the assignment the earlier
 * attempt may have created (made by kgate's developer project, same title, created since the intent, newest first)
 * and answers it instead of creating another. Two such candidates cannot be told apart: `conflict`, nothing created.
 */
import { createHash } from 'node:crypto';
import type { Database } from '../../../db/port.ts';
import { decodeCursor, encodeCursor } from '../../../kernel/cursor.ts';
import { KgateError } from '../../../kernel/errors.ts';
import { ProviderError, type ProviderCall } from '../../providers/index.ts';
import type { CallMaker } from './calls.ts';
import * as client from './classroom/client.ts';
import { presentAssignment, presentCourse, presentStudent, presentSubmission, type AssignmentView, type CourseView, type StudentView, type SubmissionView } from './classroom/present.ts';
import { ROUND_TRIP_BUDGETS, type ConnectionOwner } from './contract.ts';
import type { WriteClaim } from './drive.ts';
import { translated } from './errors.ts';
import * as store from './store.ts';

/** What a product asks to create: an assignment (workType ASSIGNMENT). */
export interface NewAssignment {
  title: string;
  description?: string | undefined;
  state: 'DRAFT' | 'PUBLISHED';
  maxPoints?: number | undefined;
  dueDate?: { year: number; month: number; day: number } | undefined;
  dueTime?: { hours: number; minutes: number } | undefined;
  materials?: ReadonlyArray<{ link: { url: string } } | { driveFile: { id: string } }> | undefined;
}

/** One page of a listing and the cursor of the next (null at the end). */
export interface ListingPage<T> {
  items: T[];
  nextCursor: string | null;
}

/** Classroom round trips. */
export interface ClassroomRoundTrips {
  listCourses(owner: ConnectionOwner, connectionId: string, cursor: string | undefined): Promise<ListingPage<CourseView>>;
  listStudents(owner: ConnectionOwner, connectionId: string, courseId: string, cursor: string | undefined): Promise<ListingPage<StudentView>>;
  createAssignment(owner: ConnectionOwner, connectionId: string, claim: WriteClaim, courseId: string, input: NewAssignment): Promise<{ assignment: AssignmentView; recovered: boolean }>;
  listSubmissions(owner: ConnectionOwner, connectionId: string, courseId: string, courseWorkId: string, cursor: string | undefined): Promise<ListingPage<SubmissionView>>;
}

// An earlier attempt's assignment was created after its intent was recorded; clocks of kgate and Google differ a little.
const CLOCK_SKEW_MS = 5 * 60 * 1000;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A listing cursor: Classroom's page token, bound to the listing it continues. */
function cursorOf(listing: string, next: string | null): string | null {
  return next === null ? null : encodeCursor({ l: listing, t: next });
}

function tokenOf(listing: string, cursor: string | undefined): string | null {
  if (cursor === undefined) return null;
  const decoded = decodeCursor(cursor, (value): value is { l: string; t: string } => {
    const v = value as { l?: unknown; t?: unknown } | null;
    return typeof v === 'object' && v !== null && typeof v.l === 'string' && typeof v.t === 'string';
  });
  if (decoded.l !== listing) throw new KgateError('invalid_request', 'The cursor belongs to another listing.', { field: 'cursor' });
  return decoded.t;
}

/** The course exists, is ACTIVE and is taught by the connection's user; `not_found` otherwise. */
async function requireTeaching(call: ProviderCall, courseId: string): Promise<void> {
  const course = await client.getCourse(call, courseId).catch((error: unknown) => {
    if (error instanceof ProviderError && error.code === 'not_found') return null;
    throw error;
  });
  if (!course || course.courseState !== 'ACTIVE' || !(await client.teachesCourse(call, courseId))) {
    throw new KgateError('not_found', "The course is not an active course the connection's teacher teaches.");
  }
}

function toCourseWork(input: NewAssignment): client.NewCourseWork {
  return {
    title: input.title,
    workType: 'ASSIGNMENT',
    state: input.state,
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.maxPoints !== undefined ? { maxPoints: input.maxPoints } : {}),
    ...(input.dueDate !== undefined ? { dueDate: input.dueDate } : {}),
    ...(input.dueTime !== undefined ? { dueTime: input.dueTime } : {}),
    ...(input.materials !== undefined
      ? { materials: input.materials.map((m) => ('link' in m ? { link: { url: m.link.url } } : { driveFile: { driveFile: { id: m.driveFile.id }, shareMode: 'VIEW' as const } })) }
      : {}),
  };
}

/** Builds the Classroom round trips. */
export function createClassroomRoundTrips(deps: { db: Database; calls: CallMaker }): ClassroomRoundTrips {
  const { db, calls } = deps;
  const readCall = async (owner: ConnectionOwner, connectionId: string) => (await calls(owner, connectionId, 'classroom', ROUND_TRIP_BUDGETS.classroomRead)).call;

  return {
    async listCourses(owner, connectionId, cursor) {
      const token = tokenOf('courses', cursor);
      const call = await readCall(owner, connectionId);
      const page = await translated(() => client.listCourses(call, token));
      // Classroom filtered by courseStates=ACTIVE; kept so again, should it ever answer otherwise.
      return { items: page.items.filter((c) => c.courseState === 'ACTIVE').map(presentCourse), nextCursor: cursorOf('courses', page.next) };
    },

    async listStudents(owner, connectionId, courseId, cursor) {
      const listing = `students:${courseId}`;
      const token = tokenOf(listing, cursor);
      const call = await readCall(owner, connectionId);
      return translated(async () => {
        await requireTeaching(call, courseId);
        const page = await client.listStudents(call, courseId, token);
        return { items: page.items.map(presentStudent), nextCursor: cursorOf(listing, page.next) };
      });
    },

    async listSubmissions(owner, connectionId, courseId, courseWorkId, cursor) {
      const listing = `submissions:${courseId}:${courseWorkId}`;
      const token = tokenOf(listing, cursor);
      const call = await readCall(owner, connectionId);
      return translated(async () => {
        await requireTeaching(call, courseId);
        const page = await client.listSubmissions(call, courseId, courseWorkId, token);
        return { items: page.items.map(presentSubmission), nextCursor: cursorOf(listing, page.next) };
      });
    },

    async createAssignment(owner, connectionId, claim, courseId, input) {
      const { connection, call } = await calls(owner, connectionId, 'classroom', ROUND_TRIP_BUDGETS.classroomWrite);
      const at = { connectionId: connection.id, claimScope: claim.scope, key: claim.key };
      const body = toCourseWork(input);
      const fingerprint = sha256(JSON.stringify(['classroom.assignment', courseId, body]));
      const earlier = await store.findIntent(db, at);
      if (earlier && (earlier.kind !== 'classroom.assignment' || earlier.fingerprint !== fingerprint)) {
        throw new KgateError('idempotency_key_reused', 'This idempotency key was already used with a different request; use a new key for a new request.');
      }
      return translated(async () => {
        await requireTeaching(call, courseId);
        if (earlier?.resultId) {
          const made = await client.getCourseWork(call, courseId, earlier.resultId);
          if (!made) throw new KgateError('conflict', 'The assignment this request created is no longer in Classroom.');
          return { assignment: presentAssignment(made), recovered: true };
        }
        if (earlier) {
          // An earlier attempt under this key may have created it and lost the answer.
          const since = earlier.startedAt.getTime() - CLOCK_SKEW_MS;
          const recent = await client.listCourseWork(call, courseId);
          const candidates = recent.items.filter((w) => w.associatedWithDeveloper === true && w.title === body.title && Date.parse(w.creationTime) >= since);
          if (candidates.length > 1) {
            throw new KgateError('conflict', 'Classroom holds more than one assignment an earlier attempt under this key could have created; nothing was created. Check the course.', {
              candidates: candidates.map((w) => w.id),
            });
          }
          if (candidates.length === 1) {
            await store.setIntentResult(db, at, candidates[0]!.id);
            return { assignment: presentAssignment(candidates[0]!), recovered: true };
          }
        } else {
          await store.insertIntent(db, at, { kind: 'classroom.assignment', fingerprint, target: courseId, detail: body.title });
        }
        const created = await client.createCourseWork(call, courseId, body);
        await store.setIntentResult(db, at, created.id);
        return { assignment: presentAssignment(created), recovered: false };
      });
    },
  };
}
