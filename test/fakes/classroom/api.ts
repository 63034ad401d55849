/**
 * The Classroom API v1 endpoints kgate uses, over the fake's store, with Classroom's rules: courses.list filtered by
 * teacherId and courseStates; courses.get and teachers.get; students.list (profile e-mails only with
 * classroom.profile.emails, photos only with classroom.profile.photos); courseWork.create (teachers only, title and
 * workType required, dueDate and dueTime together), courseWork.list (PUBLISHED only unless courseWorkStates says
 * otherwise, newest update first), courseWork.get; studentSubmissions.list (`-` for every coursework item) and
 * studentSubmissions.patch (grading: present so that a test can prove kgate never sends it). Page tokens are opaque
 * and belong to the query that made them. Errors are Google's JSON error (`{ error: { code, message, status } }`).
 */
import type { FakeAnswer } from '../drive/wire.ts';
import type { ClassroomStore, FakeCourse, FakeCourseWork } from './store.ts';

/** Google's scopes of Classroom. */
export const SCOPES = {
  courses: 'https://www.googleapis.com/auth/classroom.courses',
  coursesRead: 'https://www.googleapis.com/auth/classroom.courses.readonly',
  rosters: 'https://www.googleapis.com/auth/classroom.rosters',
  rostersRead: 'https://www.googleapis.com/auth/classroom.rosters.readonly',
  coursework: 'https://www.googleapis.com/auth/classroom.coursework.students',
  courseworkRead: 'https://www.googleapis.com/auth/classroom.coursework.students.readonly',
  emails: 'https://www.googleapis.com/auth/classroom.profile.emails',
  photos: 'https://www.googleapis.com/auth/classroom.profile.photos',
} as const;

/** Google's JSON error. */
export function classroomError(code: number, status: string, message: string, headers?: Record<string, string>): FakeAnswer {
  return { status: code, ...(headers ? { headers } : {}), json: { error: { code, message, status } } };
}

const insufficient = () => classroomError(403, 'PERMISSION_DENIED', 'Request had insufficient authentication scopes.');
const denied = () => classroomError(403, 'PERMISSION_DENIED', 'The caller does not have permission');
const notFound = (what: string) => classroomError(404, 'NOT_FOUND', `Requested entity was not found. (${what})`);
const invalid = (message: string) => classroomError(400, 'INVALID_ARGUMENT', message);

/** One request as the router hands it over. */
export interface ClassroomRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  /** The scopes of the caller's grant, and who the caller is. */
  scopes: readonly string[];
  me: string;
}

/** Settings the endpoints read. */
export interface ClassroomSettings {
  maxPageSize: number;
  /** Send profile e-mails and photos whatever the grant (to prove a client strips them). */
  leakProfiles: boolean;
}

/** What the endpoints record for the test. */
export interface ClassroomLedger {
  /** studentSubmissions.patch calls received (grading): kgate must never send one. */
  gradingRequests: number;
}

function page<T>(items: T[], request: ClassroomRequest, settings: ClassroomSettings, defaultSize: number): { items: T[]; next?: string } | FakeAnswer {
  const raw = request.query.get('pageSize');
  const asked = raw === null ? 0 : Number(raw);
  if (!Number.isInteger(asked) || asked < 0) return invalid('pageSize must be a non-negative integer.');
  const size = Math.min(asked === 0 ? defaultSize : asked, settings.maxPageSize);
  // The token belongs to the query that made it: the path and every parameter but the token itself.
  const signature = `${request.path}?${[...request.query].filter(([k]) => k !== 'pageToken').map(([k, v]) => `${k}=${v}`).join('&')}`;
  let offset = 0;
  const token = request.query.get('pageToken');
  if (token !== null) {
    try {
      const decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { o: number; q: string };
      if (decoded.q !== signature || !Number.isInteger(decoded.o) || decoded.o < 0) return invalid('Invalid page token.');
      offset = decoded.o;
    } catch {
      return invalid('Invalid page token.');
    }
  }
  const slice = items.slice(offset, offset + size);
  const next = offset + size < items.length ? Buffer.from(JSON.stringify({ o: offset + size, q: signature })).toString('base64url') : undefined;
  return { items: slice, ...(next ? { next } : {}) };
}

const has = (request: ClassroomRequest, ...scopes: string[]) => scopes.some((scope) => request.scopes.includes(scope));

function courseFor(store: ClassroomStore, request: ClassroomRequest, id: string): FakeCourse | FakeAnswer {
  const course = store.courses.get(id);
  if (!course) return notFound(`course ${id}`);
  if (!store.isMember(course, request.me)) return denied();
  return course;
}

/** Whether a helper answered a refusal instead of its value (courses and pages have no numeric `status`). */
const isAnswer = (value: unknown): value is FakeAnswer => typeof value === 'object' && value !== null && typeof (value as { status?: unknown }).status === 'number';

/** Answers one Classroom request, or null when no endpoint has that method and path. */
export function classroomApi(store: ClassroomStore, settings: ClassroomSettings, ledger: ClassroomLedger, request: ClassroomRequest): FakeAnswer | null {
  const { method } = request;
  const parts = request.path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] !== 'v1' || parts[1] !== 'courses') return null;
  const [, , courseId, collection, itemId, sub, subId] = parts;
  if (courseId === undefined) {
    if (method !== 'GET') return null;
    if (!has(request, SCOPES.courses, SCOPES.coursesRead)) return insufficient();
    const teacherId = request.query.get('teacherId');
    const states = request.query.getAll('courseStates');
    const who = teacherId === 'me' ? request.me : teacherId;
    const found = [...store.courses.values()].filter(
      (c) => store.isMember(c, request.me) && (who === null || c.teacherIds.includes(who)) && (states.length === 0 || states.includes(c.courseState)),
    );
    const paged = page(found, request, settings, 100);
    if (isAnswer(paged)) return paged;
    return { status: 200, json: { courses: paged.items.map((c) => store.presentCourse(c)), ...(paged.next ? { nextPageToken: paged.next } : {}) } };
  }
  const course = courseFor(store, request, courseId);
  if (isAnswer(course)) return course;
  if (collection === undefined && method === 'GET') {
    if (!has(request, SCOPES.courses, SCOPES.coursesRead)) return insufficient();
    return { status: 200, json: store.presentCourse(course) };
  }
  if (collection === 'teachers' && itemId !== undefined && sub === undefined && method === 'GET') {
    if (!has(request, SCOPES.rosters, SCOPES.rostersRead)) return insufficient();
    const userId = itemId === 'me' ? request.me : itemId;
    if (!course.teacherIds.includes(userId)) return notFound(`teacher ${itemId}`);
    return { status: 200, json: { courseId: course.id, userId, profile: store.presentProfile(store.profiles.get(userId)!, { emails: false, photos: false }) } };
  }
  if (collection === 'students' && itemId === undefined && method === 'GET') {
    if (!has(request, SCOPES.rosters, SCOPES.rostersRead)) return insufficient();
    const reveal = { emails: settings.leakProfiles || has(request, SCOPES.emails), photos: settings.leakProfiles || has(request, SCOPES.photos) };
    const paged = page(store.students.get(course.id) ?? [], request, settings, 30);
    if (isAnswer(paged)) return paged;
    const students = paged.items.map((userId) => ({ courseId: course.id, userId, profile: store.presentProfile(store.profiles.get(userId)!, reveal) }));
    return { status: 200, json: { students, ...(paged.next ? { nextPageToken: paged.next } : {}) } };
  }
  if (collection === 'courseWork') return courseWork(store, settings, ledger, request, course, { itemId, sub, subId });
  return null;
}

function courseWork(
  store: ClassroomStore,
  settings: ClassroomSettings,
  ledger: ClassroomLedger,
  request: ClassroomRequest,
  course: FakeCourse,
  at: { itemId: string | undefined; sub: string | undefined; subId: string | undefined },
): FakeAnswer | null {
  const { method } = request;
  const read = has(request, SCOPES.coursework, SCOPES.courseworkRead);
  if (at.itemId === undefined && method === 'POST') {
    if (!has(request, SCOPES.coursework)) return insufficient();
    if (!store.teaches(course, request.me)) return denied();
    return createCourseWork(store, request, course);
  }
  if (at.itemId === undefined && method === 'GET') {
    if (!read) return insufficient();
    const states = request.query.getAll('courseWorkStates');
    const wanted = states.length === 0 ? ['PUBLISHED'] : states;
    if (wanted.includes('DRAFT') && !store.teaches(course, request.me)) return denied();
    const orderBy = request.query.get('orderBy') ?? 'updateTime desc';
    if (orderBy !== 'updateTime desc' && orderBy !== 'updateTime asc') return invalid('Unsupported orderBy.');
    const found = store.courseWork.filter((w) => w.courseId === course.id && wanted.includes(w.state));
    const ordered = found.map((w, i) => [w, i] as const).sort(([a, i], [b, j]) => (a.updateTime === b.updateTime ? j - i : a.updateTime < b.updateTime ? 1 : -1)).map(([w]) => w);
    if (orderBy === 'updateTime asc') ordered.reverse();
    const paged = page(ordered, request, settings, 30);
    if (isAnswer(paged)) return paged;
    return { status: 200, json: { courseWork: paged.items.map((w) => store.presentCourseWork(w)), ...(paged.next ? { nextPageToken: paged.next } : {}) } };
  }
  const work = at.itemId === '-' ? undefined : store.courseWork.find((w) => w.courseId === course.id && w.id === at.itemId && w.state !== 'DELETED');
  if (at.itemId !== '-' && !work) return notFound(`course work ${at.itemId}`);
  if (at.sub === undefined && method === 'GET' && work) {
    if (!read) return insufficient();
    return { status: 200, json: store.presentCourseWork(work) };
  }
  if (at.sub === 'studentSubmissions' && at.subId === undefined && method === 'GET') {
    if (!read) return insufficient();
    const mine = store.teaches(course, request.me) ? () => true : (userId: string) => userId === request.me;
    const found = store.submissions.filter((s) => s.courseId === course.id && (work === undefined || s.courseWorkId === work.id) && mine(s.userId));
    const paged = page(found, request, settings, 30);
    if (isAnswer(paged)) return paged;
    return { status: 200, json: { studentSubmissions: paged.items.map((s) => store.presentSubmission(s)), ...(paged.next ? { nextPageToken: paged.next } : {}) } };
  }
  if (at.sub === 'studentSubmissions' && at.subId !== undefined && method === 'PATCH') {
    ledger.gradingRequests += 1;
    if (!has(request, SCOPES.coursework)) return insufficient();
    const submission = store.submissions.find((s) => s.id === at.subId);
    if (!submission) return notFound(`submission ${at.subId}`);
    const body = (request.body ?? {}) as { assignedGrade?: number; draftGrade?: number };
    if (body.assignedGrade !== undefined) submission.assignedGrade = body.assignedGrade;
    if (body.draftGrade !== undefined) submission.draftGrade = body.draftGrade;
    return { status: 200, json: store.presentSubmission(submission) };
  }
  return null;
}

const WORK_TYPES = ['ASSIGNMENT', 'SHORT_ANSWER_QUESTION', 'MULTIPLE_CHOICE_QUESTION'];

function createCourseWork(store: ClassroomStore, request: ClassroomRequest, course: FakeCourse): FakeAnswer {
  const body = request.body as Partial<FakeCourseWork> | null;
  if (!body || typeof body !== 'object') return invalid('Invalid JSON payload received.');
  for (const key of ['id', 'courseId', 'creationTime', 'updateTime', 'creatorUserId', 'associatedWithDeveloper', 'alternateLink']) {
    if (key in body) return invalid(`Output-only field ${key} may not be set.`);
  }
  if (typeof body.title !== 'string' || body.title.trim() === '') return invalid('title: Field required.');
  if (body.title.length > 3000) return invalid('title: too long.');
  if (!body.workType || !WORK_TYPES.includes(body.workType)) return invalid('workType: Field required.');
  const state = body.state ?? 'DRAFT';
  if (state !== 'PUBLISHED' && state !== 'DRAFT') return invalid('state must be PUBLISHED or DRAFT.');
  if ((body.dueDate === undefined) !== (body.dueTime === undefined)) return invalid('dueDate and dueTime must be specified together.');
  if (body.maxPoints !== undefined && (typeof body.maxPoints !== 'number' || body.maxPoints < 0)) return invalid('maxPoints must not be negative.');
  const item = store.addCourseWork({
    courseId: course.id,
    title: body.title,
    ...(body.description !== undefined ? { description: body.description } : {}),
    state,
    workType: body.workType,
    ...(body.maxPoints !== undefined ? { maxPoints: body.maxPoints } : {}),
    ...(body.dueDate !== undefined ? { dueDate: body.dueDate } : {}),
    ...(body.dueTime !== undefined ? { dueTime: body.dueTime } : {}),
    ...(body.materials !== undefined ? { materials: body.materials } : {}),
    creatorUserId: request.me,
    associatedWithDeveloper: true,
  });
  return { status: 200, json: store.presentCourseWork(item) };
}
