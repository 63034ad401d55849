/**
 * Classroom round trips of delegated connections (connections.execute; docs/education.md): the teacher's active
 * courses, a roster without profile e-mails, retry-safe assignment creation, submission attachment metadata without
 * grades. There is no grading operation: no route, no client method.
 */
import { z } from 'zod';
import { MAX_ATTACHMENTS_PER_SUBMISSION, type AssignmentView } from '../../domains/education/index.ts';
import { CONNECTION_OPERATION, CONNECTIONS, connectionsOf, ownerOf } from './education-connection-context.ts';
import { CursorSchema } from './fields.ts';
import { defineOperation, type AnyOperation } from './operation.ts';

const ConnectionIdSchema = z.uuid().describe('A connection of your installation, granted classroom');
const CourseIdSchema = z.string().regex(/^[A-Za-z0-9:_-]{1,128}$/, 'must be a Classroom course id').describe('A course the teacher teaches');
const CourseWorkIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'must be a Classroom coursework id').describe('An assignment of the course');

const READ = { ...CONNECTION_OPERATION, idempotency: 'none' } as const;
const route = (method: 'GET' | 'POST', path: string, operationId: string, kind: string) =>
  ({ method, path: `${CONNECTIONS}/{connectionId}/classroom${path}`, operationId, kind, capability: 'connections.classroom', needs: 'connections.execute' }) as const;
const ERRORS = ['invalid_request', 'not_found', 'forbidden', 'provider_disconnected', 'provider_rate_limited', 'provider_unavailable', 'provider_limit_reached', 'unavailable'] as const;
const NextCursorSchema = z.string().nullable().describe('Pass as cursor for the next page; null at the end');

const CourseSchema = z.object({
  id: z.string(),
  name: z.string(),
  section: z.string().nullable(),
  room: z.string().nullable(),
  descriptionHeading: z.string().nullable(),
  state: z.string(),
  alternateLink: z.string().nullable(),
  updateTime: z.string().nullable(),
});
const StudentSchema = z.object({
  userId: z.string(),
  name: z.object({ fullName: z.string().nullable(), givenName: z.string().nullable(), familyName: z.string().nullable() }),
});
const DueDateSchema = z.strictObject({ year: z.number().int().min(1970).max(9999), month: z.number().int().min(1).max(12), day: z.number().int().min(1).max(31) });
const DueTimeSchema = z.strictObject({ hours: z.number().int().min(0).max(23), minutes: z.number().int().min(0).max(59) });
const AssignmentSchema = z.object({
  id: z.string(),
  courseId: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  state: z.string(),
  workType: z.string(),
  maxPoints: z.number().nullable(),
  dueDate: z.object({ year: z.number(), month: z.number(), day: z.number() }).nullable(),
  dueTime: z.object({ hours: z.number(), minutes: z.number() }).nullable(),
  alternateLink: z.string().nullable(),
  creationTime: z.string(),
});
const AttachmentSchema = z.object({
  kind: z.enum(['driveFile', 'youTubeVideo', 'link', 'form']),
  id: z.string().nullable(),
  title: z.string().nullable(),
  url: z.string().nullable(),
  thumbnailUrl: z.string().nullable(),
});
const SubmissionSchema = z.object({
  id: z.string(),
  courseWorkId: z.string(),
  userId: z.string(),
  state: z.string(),
  late: z.boolean(),
  updateTime: z.string().nullable(),
  attachments: z.array(AttachmentSchema),
  attachmentsTruncated: z.boolean(),
});

/** listClassroomCourses: the teacher's active courses, one page. */
const listClassroomCourses = defineOperation({
  ...READ,
  id: 'listClassroomCourses',
  summary: 'Classroom courses',
  description: "The courses the connection's teacher teaches that are ACTIVE (courses.list with teacherId=me and courseStates=ACTIVE), 50 a page.",
  input: z.strictObject({ connectionId: ConnectionIdSchema, cursor: CursorSchema }),
  output: z.object({ courses: z.array(CourseSchema), nextCursor: NextCursorSchema }),
  errors: ERRORS,
  product: [route('GET', '/courses', 'listClassroomCourses', 'service.classroom-course-list')],
  async run(ctx, input) {
    const page = await connectionsOf(ctx).classroom.listCourses(ownerOf(ctx), input.connectionId, input.cursor);
    return { courses: page.items, nextCursor: page.nextCursor };
  },
});

/** listClassroomStudents: a roster page, names only. */
const listClassroomStudents = defineOperation({
  ...READ,
  id: 'listClassroomStudents',
  summary: 'Classroom roster',
  description:
    "The students of an active course the teacher teaches, 100 a page: each a user id and a name. Profile e-mail " +
    'addresses and photos are never asked for, and never answered even if Classroom sends them.',
  input: z.strictObject({ connectionId: ConnectionIdSchema, courseId: CourseIdSchema, cursor: CursorSchema }),
  output: z.object({ students: z.array(StudentSchema), nextCursor: NextCursorSchema }),
  errors: ERRORS,
  product: [route('GET', '/courses/{courseId}/students', 'listClassroomStudents', 'service.classroom-roster')],
  async run(ctx, input) {
    const page = await connectionsOf(ctx).classroom.listStudents(ownerOf(ctx), input.connectionId, input.courseId, input.cursor);
    return { students: page.items, nextCursor: page.nextCursor };
  },
});

const MaterialSchema = z.union([
  z.strictObject({ link: z.strictObject({ url: z.url({ protocol: /^https$/ }).max(2048) }) }),
  z.strictObject({ driveFile: z.strictObject({ id: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/) }) }),
]);

/** createClassroomAssignment: one assignment per key. */
const createClassroomAssignment = defineOperation({
  ...CONNECTION_OPERATION,
  idempotency: 'always',
  id: 'createClassroomAssignment',
  summary: 'Create a Classroom assignment',
  description:
    'Creates an assignment (workType ASSIGNMENT, DRAFT unless told PUBLISHED) in an active course the teacher teaches. ' +
    'Needs an Idempotency-Key: Classroom has none, so kgate records the request under the key before creating, and a ' +
    'retry after a lost answer finds the assignment the first attempt created instead of creating another ' +
    '(recovered: true). dueDate and dueTime go together.',
  input: z
    .strictObject({
      connectionId: ConnectionIdSchema,
      courseId: CourseIdSchema,
      title: z.string().trim().min(1).max(3000),
      description: z.string().max(30_000).optional(),
      state: z.enum(['DRAFT', 'PUBLISHED']).default('DRAFT'),
      maxPoints: z.number().int().min(0).max(1_000_000).optional(),
      dueDate: DueDateSchema.optional(),
      dueTime: DueTimeSchema.optional(),
      materials: z.array(MaterialSchema).max(20).optional().describe('Links (HTTPS) and Drive files (by id), at most 20'),
    })
    .refine((input) => (input.dueDate === undefined) === (input.dueTime === undefined), { message: 'dueDate and dueTime go together', path: ['dueTime'] }),
  output: z.object({ assignment: AssignmentSchema, recovered: z.boolean() }),
  errors: [...ERRORS, 'conflict', 'idempotency_key_reused'],
  product: [route('POST', '/courses/{courseId}/assignments', 'createClassroomAssignment', 'service.classroom-assignment')],
  stage(ctx, input, claim) {
    const { connectionId, courseId, ...assignment } = input;
    return connectionsOf(ctx).classroom.createAssignment(ownerOf(ctx), connectionId, claim, courseId, assignment);
  },
  run(ctx) {
    return Promise.resolve(ctx.commit!.staged as { assignment: AssignmentView; recovered: boolean });
  },
});

/** listClassroomSubmissions: attachment metadata of an assignment's submissions. */
const listClassroomSubmissions = defineOperation({
  ...READ,
  id: 'listClassroomSubmissions',
  summary: 'Classroom submission attachments',
  description:
    'The submissions of an assignment in an active course the teacher teaches, 50 a page: each its state and the ' +
    `metadata of at most ${MAX_ATTACHMENTS_PER_SUBMISSION} attachments (kind, id, title, link, thumbnail; ` +
    'attachmentsTruncated when there were more). Never a grade, an answer or an attachment\'s content.',
  input: z.strictObject({ connectionId: ConnectionIdSchema, courseId: CourseIdSchema, courseWorkId: CourseWorkIdSchema, cursor: CursorSchema }),
  output: z.object({ submissions: z.array(SubmissionSchema), nextCursor: NextCursorSchema }),
  errors: ERRORS,
  product: [route('GET', '/courses/{courseId}/assignments/{courseWorkId}/submissions', 'listClassroomSubmissions', 'service.classroom-submission-list')],
  async run(ctx, input) {
    const page = await connectionsOf(ctx).classroom.listSubmissions(ownerOf(ctx), input.connectionId, input.courseId, input.courseWorkId, input.cursor);
    return { submissions: page.items, nextCursor: page.nextCursor };
  },
});

/** The Classroom operations of delegated connections. */
export const EDUCATION_CLASSROOM_OPERATIONS: readonly AnyOperation[] = [listClassroomCourses, listClassroomStudents, createClassroomAssignment, listClassroomSubmissions];
