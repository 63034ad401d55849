/**
 * The Classroom requests kgate makes, each one page or one item. Schemas name only what kgate uses: a student's
 * profile is its name (never `emailAddress` or `photoUrl`), a submission its state and attachments (never
 * `assignedGrade`, `draftGrade`, `submissionHistory` or an answer). There is deliberately no request that changes a
 * submission or a grade: grading stays with the teacher in Classroom.
 */
import { z } from 'zod';
import { ProviderError, type ProviderCall } from '../../../providers/index.ts';
import { classroomFailure, classroomJson, classroomUrl } from './api.ts';

/** Items per page kgate asks for (Classroom may answer fewer). */
export const CLASSROOM_PAGE_SIZES = { courses: 50, students: 100, submissions: 50, courseWork: 50 } as const;

export const CourseSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  section: z.string().optional(),
  room: z.string().optional(),
  descriptionHeading: z.string().optional(),
  courseState: z.string(),
  alternateLink: z.string().optional(),
  updateTime: z.string().optional(),
});
export type Course = z.infer<typeof CourseSchema>;

export const StudentSchema = z.object({
  userId: z.string().min(1),
  profile: z
    .object({ name: z.object({ givenName: z.string().optional(), familyName: z.string().optional(), fullName: z.string().optional() }).optional() })
    .optional(),
});
export type Student = z.infer<typeof StudentSchema>;

const DateSchema = z.object({ year: z.number().int(), month: z.number().int(), day: z.number().int() });
const TimeSchema = z.object({ hours: z.number().int().optional(), minutes: z.number().int().optional() });

export const CourseWorkSchema = z.object({
  id: z.string().min(1),
  courseId: z.string(),
  title: z.string(),
  description: z.string().optional(),
  state: z.string(),
  workType: z.string(),
  maxPoints: z.number().optional(),
  dueDate: DateSchema.optional(),
  dueTime: TimeSchema.optional(),
  alternateLink: z.string().optional(),
  creationTime: z.string(),
  updateTime: z.string().optional(),
  associatedWithDeveloper: z.boolean().optional(),
});
export type CourseWork = z.infer<typeof CourseWorkSchema>;

const LinkedThing = z.object({ id: z.string().optional(), title: z.string().optional(), alternateLink: z.string().optional(), thumbnailUrl: z.string().optional() });
export const AttachmentSchema = z.object({
  driveFile: LinkedThing.optional(),
  youTubeVideo: LinkedThing.optional(),
  link: z.object({ url: z.string(), title: z.string().optional(), thumbnailUrl: z.string().optional() }).optional(),
  form: z.object({ formUrl: z.string(), title: z.string().optional(), thumbnailUrl: z.string().optional() }).optional(),
});
export type Attachment = z.infer<typeof AttachmentSchema>;

export const SubmissionSchema = z.object({
  id: z.string().min(1),
  courseWorkId: z.string(),
  userId: z.string(),
  state: z.string(),
  late: z.boolean().optional(),
  updateTime: z.string().optional(),
  assignmentSubmission: z.object({ attachments: z.array(AttachmentSchema).optional() }).optional(),
});
export type Submission = z.infer<typeof SubmissionSchema>;

/** A page of items and Classroom's token of the next one. */
export interface ClassroomPage<T> {
  items: T[];
  next: string | null;
}

const pageOf = <T extends z.ZodType>(field: string, item: T) => z.object({ [field]: z.array(item).default([]), nextPageToken: z.string().optional() });

async function paged<T extends z.ZodType>(call: ProviderCall, url: string, field: string, item: T, what: string): Promise<ClassroomPage<z.infer<T>>> {
  const answer = (await classroomJson(call, { method: 'GET', url }, pageOf(field, item), what)) as Record<string, unknown> & { nextPageToken?: string };
  return { items: answer[field] as Array<z.infer<T>>, next: answer.nextPageToken ?? null };
}

/** courses.list of the signed-in teacher's ACTIVE courses (teacherId=me, courseStates=ACTIVE). */
export function listCourses(call: ProviderCall, pageToken: string | null): Promise<ClassroomPage<Course>> {
  const url = classroomUrl(call, '/courses', { teacherId: 'me', courseStates: 'ACTIVE', pageSize: String(CLASSROOM_PAGE_SIZES.courses), pageToken: pageToken ?? undefined });
  return paged(call, url, 'courses', CourseSchema, 'a course listing');
}

/** courses.get. */
export function getCourse(call: ProviderCall, courseId: string): Promise<Course> {
  return classroomJson(call, { method: 'GET', url: classroomUrl(call, `/courses/${encodeURIComponent(courseId)}`) }, CourseSchema, 'a course read');
}

/** courses.teachers.get for `me`: whether the signed-in user teaches the course. */
export async function teachesCourse(call: ProviderCall, courseId: string): Promise<boolean> {
  const response = await call.send({ method: 'GET', url: classroomUrl(call, `/courses/${encodeURIComponent(courseId)}/teachers/me`), headers: { accept: 'application/json' } });
  if (response.status === 404) return false;
  if (response.status !== 200) throw classroomFailure(response, 'a teacher lookup');
  return true;
}

/** courses.students.list: one page of a course's roster. */
export function listStudents(call: ProviderCall, courseId: string, pageToken: string | null): Promise<ClassroomPage<Student>> {
  const url = classroomUrl(call, `/courses/${encodeURIComponent(courseId)}/students`, { pageSize: String(CLASSROOM_PAGE_SIZES.students), pageToken: pageToken ?? undefined });
  return paged(call, url, 'students', StudentSchema, 'a roster listing');
}

/** What kgate sends to create an assignment. */
export interface NewCourseWork {
  title: string;
  description?: string;
  workType: 'ASSIGNMENT';
  state: 'DRAFT' | 'PUBLISHED';
  maxPoints?: number;
  dueDate?: { year: number; month: number; day: number };
  dueTime?: { hours: number; minutes: number };
  materials?: Array<{ link: { url: string } } | { driveFile: { driveFile: { id: string }; shareMode: 'VIEW' } }>;
}

/** courses.courseWork.create, sent once: Classroom has no idempotency key (the caller's intent makes it retry-safe). */
export function createCourseWork(call: ProviderCall, courseId: string, body: NewCourseWork): Promise<CourseWork> {
  return classroomJson(
    call,
    {
      method: 'POST',
      url: classroomUrl(call, `/courses/${encodeURIComponent(courseId)}/courseWork`),
      headers: { 'content-type': 'application/json; charset=UTF-8' },
      body: JSON.stringify(body),
      once: true,
    },
    CourseWorkSchema,
    'an assignment create',
  );
}

/** courses.courseWork.list, newest update first, drafts included (one page). */
export function listCourseWork(call: ProviderCall, courseId: string): Promise<ClassroomPage<CourseWork>> {
  const url = classroomUrl(call, `/courses/${encodeURIComponent(courseId)}/courseWork`, {
    courseWorkStates: ['PUBLISHED', 'DRAFT'],
    orderBy: 'updateTime desc',
    pageSize: String(CLASSROOM_PAGE_SIZES.courseWork),
  });
  return paged(call, url, 'courseWork', CourseWorkSchema, 'a coursework listing');
}

/** courses.courseWork.get; null when Classroom does not have it (deleted). */
export async function getCourseWork(call: ProviderCall, courseId: string, courseWorkId: string): Promise<CourseWork | null> {
  try {
    return await classroomJson(call, { method: 'GET', url: classroomUrl(call, `/courses/${encodeURIComponent(courseId)}/courseWork/${encodeURIComponent(courseWorkId)}`) }, CourseWorkSchema, 'a coursework read');
  } catch (error) {
    if (error instanceof ProviderError && error.code === 'not_found') return null;
    throw error;
  }
}

/** courses.courseWork.studentSubmissions.list: one page of an assignment's submissions. */
export function listSubmissions(call: ProviderCall, courseId: string, courseWorkId: string, pageToken: string | null): Promise<ClassroomPage<Submission>> {
  const url = classroomUrl(call, `/courses/${encodeURIComponent(courseId)}/courseWork/${encodeURIComponent(courseWorkId)}/studentSubmissions`, {
    pageSize: String(CLASSROOM_PAGE_SIZES.submissions),
    pageToken: pageToken ?? undefined,
  });
  return paged(call, url, 'studentSubmissions', SubmissionSchema, 'a submission listing');
}
