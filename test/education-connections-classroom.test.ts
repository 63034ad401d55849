import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ATTACHMENTS_PER_SUBMISSION } from '../src/domains/education/index.ts';
import * as classroomClient from '../src/domains/education/connections/classroom/client.ts';
import { EDUCATION_CONNECTION_OPERATIONS } from '../src/surfaces/operations/education-connection-operations.ts';
import type { ClassroomRequestLog, FakeCourse, FakeProfile } from './fakes/classroom/index.ts';
import { callConnections, connect, connectionsChain, connectionTables, startConnectionsGateway, type ConnectionsGateway } from './support/education-connections.ts';
import { expectRuntimeProblem, usageOf } from './support/runtime-checks.ts';
import type { RuntimeAnswer } from './support/runtime-gateway.ts';

// Spec 4.7, docs/education.md "Classroom": the teacher's active courses and rosters without profile e-mails or
// grades, retry-safe assignment creation, bounded submission attachment metadata, and no grading mutation at all.
// The fake Classroom sends e-mails, photos and grades regardless (leakProfiles), so that their absence is kgate's doing.

interface Course {
  id: string;
  name: string;
  state: string;
}
interface Student {
  userId: string;
  name: { fullName: string | null; givenName: string | null; familyName: string | null };
}
interface Assignment {
  id: string;
  courseId: string;
  title: string;
  state: string;
  workType: string;
  dueDate: unknown;
  dueTime: unknown;
}
interface Submission {
  id: string;
  userId: string;
  state: string;
  attachments: Array<{ kind: string; id: string | null; title: string | null; url: string | null }>;
  attachmentsTruncated: boolean;
}

let gateway: ConnectionsGateway;
let chain: Awaited<ReturnType<typeof connectionsChain>>;
let connectionId: string;
let algebra: { course: FakeCourse; students: FakeProfile[] };
let geometry: FakeCourse;
let statistics: FakeCourse;
let archived: FakeCourse;
let attended: FakeCourse;

beforeAll(async () => {
  gateway = await startConnectionsGateway({ classroom: { leakProfiles: true } });
  const cr = gateway.classroom;
  algebra = cr.addCourse({ name: 'Algebra I', section: 'Period 2', room: '204' }, [
    { givenName: 'Ada', familyName: 'Byron' },
    { givenName: 'Emmy', familyName: 'Noether' },
    { givenName: 'Sofia', familyName: 'Kovalevskaya' },
  ]);
  geometry = cr.addCourse({ name: 'Geometry' }).course;
  statistics = cr.addCourse({ name: 'Statistics' }).course;
  archived = cr.addCourse({ name: 'Algebra (last year)', courseState: 'ARCHIVED' }).course;
  attended = cr.addCourseTaughtByOther('Staff development');
  chain = await connectionsChain(gateway, 'classroom');
  connectionId = await connect(gateway, chain, ['classroom']);
});

afterAll(async () => {
  await gateway?.stop();
});

const get = <D>(path: string, token = chain.token, id = connectionId): Promise<RuntimeAnswer<D>> => callConnections<D>(gateway, token, 'GET', `/${id}/classroom${path}`);
const createAssignment = (courseId: string, body: Record<string, unknown>, key: string | null = randomUUID(), token = chain.token, id = connectionId) =>
  callConnections<{ assignment: Assignment; recovered: boolean }>(gateway, token, 'POST', `/${id}/classroom/courses/${courseId}/assignments`, { json: body, headers: { 'Idempotency-Key': key } });
const titled = (title: string) => gateway.classroom.store.courseWork.filter((w) => w.title === title);
const classroomState = () => JSON.stringify([gateway.classroom.store.courseWork, gateway.classroom.store.submissions]);
const isCreate = (r: ClassroomRequestLog) => r.method === 'POST' && r.path.endsWith('/courseWork');

async function all<T>(path: string, field: string): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const answer: RuntimeAnswer<Record<string, unknown>> = await get(`${path}${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    items.push(...(answer.body.data[field] as T[]));
    cursor = answer.body.data.nextCursor as string | null;
  } while (cursor);
  return items;
}

describe('courses and rosters', () => {
  it("lists the teacher's active courses only, page by page", async () => {
    const courses = await all<Course>('/courses', 'courses');
    expect(courses.map((c) => c.name).sort()).toEqual(['Algebra I', 'Geometry', 'Statistics']);
    expect(courses.every((c) => c.state === 'ACTIVE')).toBe(true);
    expect(courses.find((c) => c.name === 'Algebra I')).toEqual({
      id: algebra.course.id, name: 'Algebra I', section: 'Period 2', room: '204', descriptionHeading: null, state: 'ACTIVE',
      alternateLink: `https://classroom.google.com/c/${algebra.course.id}`, updateTime: algebra.course.updateTime,
    });
    const listings = gateway.classroom.requests.filter((r) => r.method === 'GET' && r.path === '/v1/courses');
    expect(listings.length).toBeGreaterThan(1);
    expect(listings.every((r) => r.query.get('teacherId') === 'me' && r.query.getAll('courseStates').join() === 'ACTIVE')).toBe(true);
    expect(JSON.stringify(courses)).not.toMatch(/@|enrollmentCode|teacherGroupEmail/);
    void [geometry, statistics, archived, attended];
  });

  it('lists a roster with names only, even when Classroom sends e-mails and photos', async () => {
    const students = await all<Student>(`/courses/${algebra.course.id}/students`, 'students');
    expect(students).toEqual(
      algebra.students.map((p) => ({ userId: p.id, name: { fullName: `${p.givenName} ${p.familyName}`, givenName: p.givenName, familyName: p.familyName } })),
    );
    // The fake did send them.
    expect(algebra.students[0]!.emailAddress).toContain('@school.example');
    const text = JSON.stringify(students);
    for (const profile of algebra.students) {
      expect(text).not.toContain(profile.emailAddress);
      expect(text).not.toContain(profile.photoUrl);
    }
    expect(text).not.toMatch(/@|emailAddress|photo/);
  });

  it('refuses rosters of courses the teacher does not teach, archived or unknown ones, and cursors of another listing', async () => {
    for (const courseId of [attended.id, archived.id, '999999999999']) {
      expectRuntimeProblem(await get(`/courses/${courseId}/students`), 404, 'not_found');
    }
    const first = await get<{ nextCursor: string }>('/courses');
    expectRuntimeProblem(await get(`/courses/${algebra.course.id}/students?cursor=${encodeURIComponent(first.body.data.nextCursor)}`), 400, 'invalid_request');
    expectRuntimeProblem(await get('/courses?cursor=not-a-cursor'), 400, 'invalid_request');
    expectRuntimeProblem(await get('/courses/a%20b/students'), 400, 'invalid_request');
  });
});

describe('creating assignments', () => {
  it('creates one assignment per key: a replay answers it again, another body under the key is refused', async () => {
    const key = randomUUID();
    const body = { title: 'Linear equations practice', description: 'Problems 1 to 10', dueDate: { year: 2030, month: 3, day: 14 }, dueTime: { hours: 15, minutes: 0 }, materials: [{ link: { url: 'https://example.org/worksheet' } }] };
    const first = await createAssignment(algebra.course.id, body, key);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ kind: 'service.classroom-assignment', status: 'ok' });
    const [stored] = titled('Linear equations practice');
    expect(stored).toMatchObject({ courseId: algebra.course.id, state: 'DRAFT', workType: 'ASSIGNMENT', associatedWithDeveloper: true, materials: [{ link: { url: 'https://example.org/worksheet' } }] });
    expect(first.body.data).toEqual({
      assignment: {
        id: stored!.id, courseId: algebra.course.id, title: 'Linear equations practice', description: 'Problems 1 to 10', state: 'DRAFT', workType: 'ASSIGNMENT',
        maxPoints: null, dueDate: { year: 2030, month: 3, day: 14 }, dueTime: { hours: 15, minutes: 0 },
        alternateLink: `https://classroom.google.com/c/${algebra.course.id}/a/${stored!.id}/details`, creationTime: stored!.creationTime,
      },
      recovered: false,
    });
    const replay = await createAssignment(algebra.course.id, body, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data).toEqual(first.body.data);
    expectRuntimeProblem(await createAssignment(algebra.course.id, { ...body, title: 'Other' }, key), 422, 'idempotency_key_reused');
    expect(titled('Linear equations practice')).toHaveLength(1);
    expect(titled('Other')).toHaveLength(0);
  });

  it('a retry after a lost answer finds the assignment the first attempt created: one assignment', async () => {
    const key = randomUUID();
    const body = { title: 'Quadratics quiz', state: 'PUBLISHED' };
    gateway.classroom.loseNextAnswer(isCreate);
    expectRuntimeProblem(await createAssignment(geometry.id, body, key), 502, 'provider_unavailable');
    expect(titled('Quadratics quiz')).toHaveLength(1);
    const creates = gateway.classroom.requests.filter(isCreate).length;
    const retry = await createAssignment(geometry.id, body, key);
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    expect(retry.body.data).toMatchObject({ recovered: true, assignment: { id: titled('Quadratics quiz')[0]!.id, state: 'PUBLISHED' } });
    expect(gateway.classroom.requests.filter(isCreate).length).toBe(creates);
    expect(titled('Quadratics quiz')).toHaveLength(1);
  });

  it('a retry whose first attempt never reached Classroom creates it then; two candidates are a conflict', async () => {
    const key = randomUUID();
    gateway.classroom.failNextMatching(isCreate, 503);
    expectRuntimeProblem(await createAssignment(statistics.id, { title: 'Survey design' }, key), 502, 'provider_unavailable');
    expect(titled('Survey design')).toHaveLength(0);
    const retry = await createAssignment(statistics.id, { title: 'Survey design' }, key);
    expect(retry.body.data.recovered).toBe(false);
    expect(titled('Survey design')).toHaveLength(1);

    const ambiguous = randomUUID();
    gateway.classroom.loseNextAnswer(isCreate);
    await createAssignment(statistics.id, { title: 'Sampling' }, ambiguous);
    // Another request of the same developer project made an assignment of the same title meanwhile.
    gateway.classroom.store.addCourseWork({ courseId: statistics.id, title: 'Sampling', state: 'DRAFT', workType: 'ASSIGNMENT', creatorUserId: gateway.classroom.teacher.id, associatedWithDeveloper: true });
    const before = classroomState();
    const problem = expectRuntimeProblem(await createAssignment(statistics.id, { title: 'Sampling' }, ambiguous), 409, 'conflict');
    expect((problem.details!.candidates as string[]).sort()).toEqual(titled('Sampling').map((w) => w.id).sort());
    expect(classroomState()).toBe(before);
  });

  it('refuses malformed assignments and courses the teacher does not teach, creating nothing', async () => {
    const before = classroomState();
    for (const body of [
      { title: '' },
      { title: 'x'.repeat(3001) },
      { title: 'Due', dueDate: { year: 2030, month: 1, day: 1 } },
      { title: 'Due', dueTime: { hours: 9, minutes: 0 } },
      { title: 'Bad', state: 'DELETED' },
      { title: 'Bad', workType: 'SHORT_ANSWER_QUESTION' },
      { title: 'Bad', materials: [{ link: { url: 'http://insecure.example/' } }] },
      { title: 'Bad', materials: Array.from({ length: 21 }, (_, i) => ({ link: { url: `https://example.org/${i}` } })) },
      { title: 'Bad', assignedGrade: 10 },
    ]) {
      expectRuntimeProblem(await createAssignment(algebra.course.id, body), 400, 'invalid_request');
    }
    for (const courseId of [attended.id, archived.id]) expectRuntimeProblem(await createAssignment(courseId, { title: 'Not mine' }), 404, 'not_found');
    expect(classroomState()).toBe(before);
  });
});

describe('submissions', () => {
  it('lists attachment metadata page by page, bounded per submission, never a grade or an answer', async () => {
    const work = gateway.classroom.addCourseWork(algebra.course.id, 'Essay');
    const [ada, emmy, sofia] = algebra.students;
    gateway.classroom.addSubmission({
      courseId: algebra.course.id, courseWorkId: work.id, userId: ada!.id, assignedGrade: 93, draftGrade: 95,
      attachments: [{ driveFile: { id: 'file-1', title: 'Essay.docx', alternateLink: 'https://drive.google.com/file-1' } }, { link: { url: 'https://example.org/source', title: 'Source' } }],
    });
    gateway.classroom.addSubmission({
      courseId: algebra.course.id, courseWorkId: work.id, userId: emmy!.id,
      attachments: Array.from({ length: MAX_ATTACHMENTS_PER_SUBMISSION + 1 }, (_, i) => ({ link: { url: `https://example.org/${i}` } })),
    });
    gateway.classroom.addSubmission({ courseId: algebra.course.id, courseWorkId: work.id, userId: sofia!.id, state: 'RETURNED', assignedGrade: 71, shortAnswer: 'forty-two' });
    const submissions = await all<Submission>(`/courses/${algebra.course.id}/assignments/${work.id}/submissions`, 'submissions');
    expect(submissions.map((s) => s.userId)).toEqual([ada!.id, emmy!.id, sofia!.id]);
    expect(submissions[0]).toMatchObject({
      state: 'TURNED_IN',
      attachments: [
        { kind: 'driveFile', id: 'file-1', title: 'Essay.docx', url: 'https://drive.google.com/file-1' },
        { kind: 'link', id: null, title: 'Source', url: 'https://example.org/source' },
      ],
      attachmentsTruncated: false,
    });
    expect(submissions[1]!.attachments).toHaveLength(MAX_ATTACHMENTS_PER_SUBMISSION);
    expect(submissions[1]!.attachmentsTruncated).toBe(true);
    expect(submissions[2]).toMatchObject({ state: 'RETURNED', attachments: [], attachmentsTruncated: false });
    const keys = ['attachments', 'attachmentsTruncated', 'courseWorkId', 'id', 'late', 'state', 'updateTime', 'userId'];
    for (const submission of submissions) expect(Object.keys(submission).sort()).toEqual(keys);
    expect(JSON.stringify(submissions)).not.toMatch(/[Gg]rade|forty-two|answer|[Hh]istory|pointsEarned/);
  });

  it('refuses submissions of courses the teacher does not teach', async () => {
    const work = gateway.classroom.addCourseWork(attended.id, 'Their essay');
    expectRuntimeProblem(await get(`/courses/${attended.id}/assignments/${work.id}/submissions`), 404, 'not_found');
  });

  it('has no grading mutation: no route, no client request, and Classroom never received one', () => {
    const routes = EDUCATION_CONNECTION_OPERATIONS.flatMap((o) => (o.product ?? []).map((b) => `${b.method} ${b.path}`));
    expect(routes.filter((r) => r.includes('/classroom/'))).toEqual([
      'GET /api/product/v1/connections/{connectionId}/classroom/courses',
      'GET /api/product/v1/connections/{connectionId}/classroom/courses/{courseId}/students',
      'POST /api/product/v1/connections/{connectionId}/classroom/courses/{courseId}/assignments',
      'GET /api/product/v1/connections/{connectionId}/classroom/courses/{courseId}/assignments/{courseWorkId}/submissions',
    ]);
    expect(routes.join('\n')).not.toMatch(/grade|return|patch/i);
    const requests = Object.entries(classroomClient).filter(([, value]) => typeof value === 'function').map(([name]) => name).sort();
    expect(requests).toEqual(['createCourseWork', 'getCourse', 'getCourseWork', 'listCourseWork', 'listCourses', 'listStudents', 'listSubmissions', 'teachesCourse']);
    expect(gateway.classroom.requests.filter((r) => r.method === 'PATCH' || /studentSubmissions\/[^/]+/.test(r.path))).toEqual([]);
    expect(gateway.classroom.gradingRequests()).toBe(0);
  });
});

describe('authority and the connection', () => {
  it('needs connections.execute for every Classroom route: refused before anything is created or counted', async () => {
    const manageOnly = await connectionsChain(gateway, 'classroom-manage-only', ['connections.manage']);
    const before = classroomState();
    const tables = await connectionTables(gateway);
    const used = await usageOf(gateway, manageOnly.organization.id);
    const work = titled('Linear equations practice')[0]!;
    for (const call of [
      () => get('/courses', manageOnly.token),
      () => get(`/courses/${algebra.course.id}/students`, manageOnly.token),
      () => createAssignment(algebra.course.id, { title: 'Sneaky' }, randomUUID(), manageOnly.token),
      () => get(`/courses/${algebra.course.id}/assignments/${work.id}/submissions`, manageOnly.token),
    ]) {
      const answer = await call();
      expect(expectRuntimeProblem(answer, 403, 'insufficient_scope').details).toEqual({ scope: 'connections.execute' });
      expect(answer.body.receipts).toEqual([]);
    }
    expect(await usageOf(gateway, manageOnly.organization.id)).toBe(used);
    expect(classroomState()).toBe(before);
    expect(await connectionTables(gateway)).toBe(tables);
  });

  it("does not use another installation's connection", async () => {
    const other = await connectionsChain(gateway, 'classroom-other');
    await connect(gateway, other, ['classroom']);
    const before = classroomState();
    const classroomRequests = gateway.classroom.requests.length;
    expectRuntimeProblem(await get('/courses', other.token), 404, 'not_found');
    expectRuntimeProblem(await get(`/courses/${algebra.course.id}/students`, other.token), 404, 'not_found');
    expectRuntimeProblem(await createAssignment(algebra.course.id, { title: 'Theirs' }, randomUUID(), other.token), 404, 'not_found');
    expect(classroomState()).toBe(before);
    expect(gateway.classroom.requests.length).toBe(classroomRequests);
  });

  it('answers forbidden for a connection Google did not grant Classroom', async () => {
    const driveOnly = await connectionsChain(gateway, 'classroom-drive-only');
    const id = await connect(gateway, driveOnly, ['drive']);
    const problem = expectRuntimeProblem(await get('/courses', driveOnly.token, id), 403, 'forbidden');
    expect(problem.details).toMatchObject({ service: 'classroom' });
    expect(problem.details!.missingScopes).toHaveLength(3);
  });
});

describe('Google failures', () => {
  it('refreshes after a 401, waits out short rate limits and server errors, and answers the rest', async () => {
    gateway.google.expireAccessTokens();
    expect((await get('/courses')).status).toBe(200);
    gateway.classroom.rateLimitNext(2, 0);
    expect((await get('/courses')).status).toBe(200);
    gateway.classroom.failNext(1, 500);
    expect((await get('/courses')).status).toBe(200);
    gateway.classroom.rateLimitNext(1, 90);
    const limited = await get('/courses');
    expect(expectRuntimeProblem(limited, 503, 'provider_rate_limited').details).toEqual({ retryAfterSeconds: 90 });
    expect(limited.headers.get('retry-after')).toBe('90');
    gateway.classroom.forbidNext(1);
    expectRuntimeProblem(await get('/courses'), 403, 'forbidden');
    gateway.classroom.failNext(6, 503);
    expectRuntimeProblem(await get('/courses'), 502, 'provider_unavailable');
    expect((await get('/courses')).status).toBe(200);
  });
});
