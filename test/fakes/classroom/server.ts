/**
 * A local fake of the Google Classroom API v1 on 127.0.0.1 (port 0), the same paths as `classroom.googleapis.com`.
 * Bearer tokens are Google's: the fake asks the fake Google authorization server (the Drive fake's, `checkToken`)
 * about each one, as Google's APIs share one OAuth server. Faults on demand: 401 (expired or revoked tokens, through
 * the OAuth fake), 403 (Classroom access off), 429 with Retry-After, 5xx, and an answer lost after the request
 * landed.
 */
import type { IncomingMessage } from 'node:http';
import { serveFake, takeMatching, type FakeAnswer } from '../drive/wire.ts';
import { classroomApi, classroomError, type ClassroomLedger } from './api.ts';
import { ClassroomStore, type FakeAttachment, type FakeCourse, type FakeCourseWork, type FakeProfile, type FakeSubmission } from './store.ts';

/** One logged request. */
export interface ClassroomRequestLog {
  method: string;
  path: string;
  query: URLSearchParams;
}

/** Settings of {@link startClassroomFake}. */
export interface ClassroomFakeOptions {
  /** The grant behind a bearer token, from the fake Google authorization server. */
  checkToken: (token: string) => { scopes: string[] } | 'unknown' | 'expired';
  /** Largest page answered whatever pageSize asks (small values make clients page). */
  maxPageSize?: number;
  /** Send profile e-mails and photos whatever the grant (a client must strip them itself). */
  leakProfiles?: boolean;
}

/** A started fake. */
export interface ClassroomFake {
  /** The API origin (`https://classroom.googleapis.com` in production). */
  origin: string;
  /** The signed-in teacher (every token is this user's). */
  teacher: FakeProfile;
  store: ClassroomStore;
  requests: ClassroomRequestLog[];
  /** studentSubmissions.patch calls (grading) received. */
  gradingRequests(): number;
  /** A course the teacher teaches (ACTIVE unless told), with students by name. */
  addCourse(input: Partial<FakeCourse> & { name: string }, students?: Array<{ givenName: string; familyName: string }>): { course: FakeCourse; students: FakeProfile[] };
  /** A course someone else teaches and the teacher only attends. */
  addCourseTaughtByOther(name: string): FakeCourse;
  /** Coursework made in Classroom's own pages (not by the API's developer project). */
  addCourseWork(courseId: string, title: string, state?: FakeCourseWork['state']): FakeCourseWork;
  addSubmission(input: { courseId: string; courseWorkId: string; userId: string; attachments?: FakeAttachment[]; state?: FakeSubmission['state']; assignedGrade?: number; draftGrade?: number; shortAnswer?: string }): FakeSubmission;
  /** The next `n` requests answer 429 RESOURCE_EXHAUSTED with this Retry-After. */
  rateLimitNext(n: number, retryAfterSeconds: number): void;
  /** The next `n` requests answer a server error (500 INTERNAL, or 503 UNAVAILABLE). */
  failNext(n: number, status?: number): void;
  /** The next `n` requests answer 403 PERMISSION_DENIED (Classroom access switched off for the user). */
  forbidNext(n: number): void;
  /** The first request `match` accepts is carried out and its answer lost: 500 instead. */
  loseNextAnswer(match: (request: ClassroomRequestLog) => boolean): void;
  /** The first request `match` accepts is not carried out: it answers a server error (500, or 503) instead. */
  failNextMatching(match: (request: ClassroomRequestLog) => boolean, status?: number): void;
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Starts a fake Classroom. */
export async function startClassroomFake(options: ClassroomFakeOptions): Promise<ClassroomFake> {
  const store = new ClassroomStore();
  const teacher = store.addProfile({ givenName: 'Grace', familyName: 'Hopper' });
  const settings = { maxPageSize: options.maxPageSize ?? 1000, leakProfiles: options.leakProfiles ?? false };
  const ledger: ClassroomLedger = { gradingRequests: 0 };
  const requests: ClassroomRequestLog[] = [];
  const faults: FakeAnswer[] = [];
  const losses: Array<(request: ClassroomRequestLog) => boolean> = [];
  const refusals: Array<{ match: (request: ClassroomRequestLog) => boolean; status: number }> = [];
  const serverError = (status: number) => classroomError(status, status === 503 ? 'UNAVAILABLE' : 'INTERNAL', 'The service is currently unavailable.');

  async function handle(req: IncomingMessage): Promise<FakeAnswer> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const logged = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams };
    requests.push(logged);
    const raw = await readBody(req);
    if (raw === null) return classroomError(413, 'INVALID_ARGUMENT', 'Request payload too large.');
    const fault = faults.shift();
    if (fault) return fault;
    const refusal = takeMatching(refusals, logged);
    if (refusal) return serverError(refusal.status);
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const grant = bearer ? options.checkToken(bearer) : 'unknown';
    if (typeof grant === 'string') {
      return classroomError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials. Expected OAuth 2 access token.', {
        'www-authenticate': 'Bearer realm="https://accounts.google.com/"',
      });
    }
    let body: unknown = null;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return classroomError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
      }
    }
    const answer =
      classroomApi(store, settings, ledger, { method: logged.method, path: url.pathname, query: url.searchParams, body, scopes: grant.scopes, me: teacher.id }) ??
      classroomError(404, 'NOT_FOUND', 'Method not found.');
    // A lost answer: the work above is done, the caller hears a server error.
    if (takeMatching(losses, logged)) return classroomError(500, 'INTERNAL', 'Internal error encountered.');
    return answer;
  }

  const { origin, close } = await serveFake(handle, classroomError(500, 'INTERNAL', 'Internal error encountered.'));

  return {
    origin,
    teacher,
    store,
    requests,
    gradingRequests: () => ledger.gradingRequests,
    addCourse(input, students = []) {
      const course = store.addCourse({ teacherIds: [teacher.id], ...input });
      const profiles = students.map((s) => store.addProfile(s));
      for (const profile of profiles) store.enrol(course.id, profile.id);
      return { course, students: profiles };
    },
    addCourseTaughtByOther(name) {
      const other = store.addProfile({ givenName: 'Alan', familyName: 'Turing' });
      const course = store.addCourse({ name, teacherIds: [other.id] });
      store.enrol(course.id, teacher.id);
      return course;
    },
    addCourseWork: (courseId, title, state = 'PUBLISHED') =>
      store.addCourseWork({ courseId, title, state, workType: 'ASSIGNMENT', creatorUserId: teacher.id, associatedWithDeveloper: false }),
    addSubmission: (input) =>
      store.addSubmission({
        courseId: input.courseId,
        courseWorkId: input.courseWorkId,
        userId: input.userId,
        state: input.state ?? 'TURNED_IN',
        attachments: input.attachments ?? [],
        ...(input.assignedGrade !== undefined ? { assignedGrade: input.assignedGrade } : {}),
        ...(input.draftGrade !== undefined ? { draftGrade: input.draftGrade } : {}),
        ...(input.shortAnswer !== undefined ? { shortAnswer: input.shortAnswer } : {}),
      }),
    rateLimitNext(n, retryAfterSeconds) {
      for (let i = 0; i < n; i += 1) {
        faults.push(classroomError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded.', { 'retry-after': String(retryAfterSeconds) }));
      }
    },
    failNext(n, status = 500) {
      for (let i = 0; i < n; i += 1) faults.push(serverError(status));
    },
    forbidNext(n) {
      for (let i = 0; i < n; i += 1) faults.push(classroomError(403, 'PERMISSION_DENIED', '@ClassroomApiDisabled The user is not permitted to access the Classroom API.'));
    },
    loseNextAnswer(match) {
      losses.push(match);
    },
    failNextMatching(match, status = 500) {
      refusals.push({ match, status });
    },
    close,
  };
}
