/**
 * The fake Classroom's courses, rosters, coursework and submissions, in memory, presented in the JSON shapes of the
 * Classroom API v1 (Course, Student with its UserProfile, CourseWork, StudentSubmission with its attachments).
 * Ids are numeric strings as Classroom's are. Coursework made through the API belongs to the fake's one developer
 * project (`associatedWithDeveloper: true`); coursework a teacher made in Classroom's own pages does not.
 */
import { randomInt } from 'node:crypto';

/** A course and who is in it. */
export interface FakeCourse {
  id: string;
  name: string;
  section?: string;
  room?: string;
  descriptionHeading?: string;
  description?: string;
  ownerId: string;
  courseState: 'ACTIVE' | 'ARCHIVED' | 'PROVISIONED' | 'DECLINED' | 'SUSPENDED';
  teacherIds: string[];
  creationTime: string;
  updateTime: string;
  enrollmentCode: string;
}

/** A person's profile as Classroom keeps it. */
export interface FakeProfile {
  id: string;
  givenName: string;
  familyName: string;
  emailAddress: string;
  photoUrl: string;
}

/** One assignment (or question) of a course. */
export interface FakeCourseWork {
  courseId: string;
  id: string;
  title: string;
  description?: string;
  state: 'PUBLISHED' | 'DRAFT' | 'DELETED';
  workType: 'ASSIGNMENT' | 'SHORT_ANSWER_QUESTION' | 'MULTIPLE_CHOICE_QUESTION';
  maxPoints?: number;
  dueDate?: { year: number; month: number; day: number };
  dueTime?: { hours?: number; minutes?: number };
  materials?: unknown[];
  creationTime: string;
  updateTime: string;
  creatorUserId: string;
  associatedWithDeveloper: boolean;
}

/** An attachment of a submission, in Classroom's own shape. */
export type FakeAttachment =
  | { driveFile: { id: string; title: string; alternateLink: string; thumbnailUrl?: string } }
  | { link: { url: string; title?: string; thumbnailUrl?: string } }
  | { youTubeVideo: { id: string; title: string; alternateLink: string; thumbnailUrl?: string } }
  | { form: { formUrl: string; responseUrl?: string; title: string; thumbnailUrl?: string } };

/** A student's submission for one coursework item, with grades and answers the fake sends as Classroom does. */
export interface FakeSubmission {
  courseId: string;
  courseWorkId: string;
  id: string;
  userId: string;
  state: 'NEW' | 'CREATED' | 'TURNED_IN' | 'RETURNED' | 'RECLAIMED_BY_STUDENT';
  late: boolean;
  assignedGrade?: number;
  draftGrade?: number;
  attachments: FakeAttachment[];
  shortAnswer?: string;
  creationTime: string;
  updateTime: string;
}

const now = () => new Date().toISOString();
const numericId = () => String(randomInt(100_000_000, 999_999_999)) + String(randomInt(100, 999));

/** Everything the fake Classroom holds. */
export class ClassroomStore {
  readonly courses = new Map<string, FakeCourse>();
  readonly profiles = new Map<string, FakeProfile>();
  /** Course id to its students' user ids, in enrolment order. */
  readonly students = new Map<string, string[]>();
  readonly courseWork: FakeCourseWork[] = [];
  readonly submissions: FakeSubmission[] = [];

  addProfile(input: { givenName: string; familyName: string; emailAddress?: string }): FakeProfile {
    const id = numericId();
    const profile = {
      id,
      givenName: input.givenName,
      familyName: input.familyName,
      emailAddress: input.emailAddress ?? `${input.givenName.toLowerCase()}.${input.familyName.toLowerCase()}@school.example`,
      photoUrl: `//lh3.googleusercontent.com/a/${id}`,
    };
    this.profiles.set(id, profile);
    return profile;
  }

  addCourse(input: Partial<FakeCourse> & { name: string; teacherIds: string[] }): FakeCourse {
    const course: FakeCourse = {
      id: numericId(),
      ownerId: input.teacherIds[0]!,
      courseState: 'ACTIVE',
      creationTime: now(),
      updateTime: now(),
      enrollmentCode: `e${numericId().slice(0, 6)}`,
      ...input,
    };
    this.courses.set(course.id, course);
    this.students.set(course.id, []);
    return course;
  }

  enrol(courseId: string, userId: string): void {
    this.students.get(courseId)!.push(userId);
  }

  addCourseWork(input: Omit<FakeCourseWork, 'id' | 'creationTime' | 'updateTime'>): FakeCourseWork {
    const item: FakeCourseWork = { ...input, id: numericId(), creationTime: now(), updateTime: now() };
    this.courseWork.push(item);
    return item;
  }

  addSubmission(input: Omit<FakeSubmission, 'id' | 'creationTime' | 'updateTime' | 'late'> & { late?: boolean }): FakeSubmission {
    const item: FakeSubmission = { late: false, ...input, id: `Cg${numericId()}`, creationTime: now(), updateTime: now() };
    this.submissions.push(item);
    return item;
  }

  /** Whether a user teaches a course. */
  teaches(course: FakeCourse, userId: string): boolean {
    return course.teacherIds.includes(userId);
  }

  /** Whether a user is in a course at all (teacher or student). */
  isMember(course: FakeCourse, userId: string): boolean {
    return this.teaches(course, userId) || (this.students.get(course.id) ?? []).includes(userId);
  }

  presentCourse(course: FakeCourse): Record<string, unknown> {
    return {
      ...course,
      teacherIds: undefined,
      alternateLink: `https://classroom.google.com/c/${course.id}`,
      teacherGroupEmail: `course-${course.id}-teachers@school.example`,
      courseGroupEmail: `course-${course.id}@school.example`,
      guardiansEnabled: false,
      calendarId: `classroom${course.id}@group.calendar.google.com`,
    };
  }

  /** A UserProfile; `emails` and `photos` say whether the grant may see them (classroom.profile.*). */
  presentProfile(profile: FakeProfile, reveal: { emails: boolean; photos: boolean }): Record<string, unknown> {
    return {
      id: profile.id,
      name: { givenName: profile.givenName, familyName: profile.familyName, fullName: `${profile.givenName} ${profile.familyName}` },
      ...(reveal.emails ? { emailAddress: profile.emailAddress } : {}),
      ...(reveal.photos ? { photoUrl: profile.photoUrl } : {}),
    };
  }

  presentCourseWork(item: FakeCourseWork): Record<string, unknown> {
    return { ...item, alternateLink: `https://classroom.google.com/c/${item.courseId}/a/${item.id}/details` };
  }

  presentSubmission(item: FakeSubmission): Record<string, unknown> {
    const { attachments, shortAnswer, ...rest } = item;
    const work = this.courseWork.find((w) => w.id === item.courseWorkId);
    return {
      ...rest,
      alternateLink: `https://classroom.google.com/c/${item.courseId}/a/${item.courseWorkId}/submissions/by-status/and-sort-last-name/student/${item.userId}`,
      courseWorkType: work?.workType ?? 'ASSIGNMENT',
      associatedWithDeveloper: work?.associatedWithDeveloper ?? false,
      ...(shortAnswer !== undefined ? { shortAnswerSubmission: { answer: shortAnswer } } : { assignmentSubmission: { attachments } }),
      submissionHistory: [
        { stateHistory: { state: 'CREATED', stateTimestamp: item.creationTime, actorUserId: item.userId } },
        ...(item.assignedGrade !== undefined
          ? [{ gradeHistory: { pointsEarned: item.assignedGrade, maxPoints: work?.maxPoints ?? 100, gradeTimestamp: item.updateTime, gradeChangeType: 'ASSIGNED_GRADE_POINTS_EARNED_CHANGE' } }]
          : []),
      ],
    };
  }
}
