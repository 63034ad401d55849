/**
 * Classroom items as products see them: each field listed here, nothing passed through. A roster entry is a user id
 * and a name (no e-mail address, no photo); a submission is its state and attachment metadata (no grade, no answer,
 * no history); an attachment is what it is and where it lives, never its content. At most
 * MAX_ATTACHMENTS_PER_SUBMISSION attachments per submission, `attachmentsTruncated` when there were more.
 */
import type { Attachment, Course, CourseWork, Student, Submission } from './client.ts';

/** Most attachments listed per submission. */
export const MAX_ATTACHMENTS_PER_SUBMISSION = 20;

/** A course of the teacher. */
export interface CourseView {
  id: string;
  name: string;
  section: string | null;
  room: string | null;
  descriptionHeading: string | null;
  state: string;
  alternateLink: string | null;
  updateTime: string | null;
}

/** A student of a roster: id and name only. */
export interface StudentView {
  userId: string;
  name: { fullName: string | null; givenName: string | null; familyName: string | null };
}

/** An assignment kgate created. */
export interface AssignmentView {
  id: string;
  courseId: string;
  title: string;
  description: string | null;
  state: string;
  workType: string;
  maxPoints: number | null;
  dueDate: { year: number; month: number; day: number } | null;
  dueTime: { hours: number; minutes: number } | null;
  alternateLink: string | null;
  creationTime: string;
}

/** One attachment's metadata. */
export interface AttachmentView {
  kind: 'driveFile' | 'youTubeVideo' | 'link' | 'form';
  id: string | null;
  title: string | null;
  url: string | null;
  thumbnailUrl: string | null;
}

/** A submission: its state and attachment metadata, nothing of its grade or answers. */
export interface SubmissionView {
  id: string;
  courseWorkId: string;
  userId: string;
  state: string;
  late: boolean;
  updateTime: string | null;
  attachments: AttachmentView[];
  attachmentsTruncated: boolean;
}

export function presentCourse(course: Course): CourseView {
  return {
    id: course.id,
    name: course.name,
    section: course.section ?? null,
    room: course.room ?? null,
    descriptionHeading: course.descriptionHeading ?? null,
    state: course.courseState,
    alternateLink: course.alternateLink ?? null,
    updateTime: course.updateTime ?? null,
  };
}

export function presentStudent(student: Student): StudentView {
  const name = student.profile?.name;
  return { userId: student.userId, name: { fullName: name?.fullName ?? null, givenName: name?.givenName ?? null, familyName: name?.familyName ?? null } };
}

export function presentAssignment(work: CourseWork): AssignmentView {
  return {
    id: work.id,
    courseId: work.courseId,
    title: work.title,
    description: work.description ?? null,
    state: work.state,
    workType: work.workType,
    maxPoints: work.maxPoints ?? null,
    dueDate: work.dueDate ?? null,
    dueTime: work.dueTime ? { hours: work.dueTime.hours ?? 0, minutes: work.dueTime.minutes ?? 0 } : null,
    alternateLink: work.alternateLink ?? null,
    creationTime: work.creationTime,
  };
}

function presentAttachment(attachment: Attachment): AttachmentView | null {
  if (attachment.driveFile) {
    const { id, title, alternateLink, thumbnailUrl } = attachment.driveFile;
    return { kind: 'driveFile', id: id ?? null, title: title ?? null, url: alternateLink ?? null, thumbnailUrl: thumbnailUrl ?? null };
  }
  if (attachment.youTubeVideo) {
    const { id, title, alternateLink, thumbnailUrl } = attachment.youTubeVideo;
    return { kind: 'youTubeVideo', id: id ?? null, title: title ?? null, url: alternateLink ?? null, thumbnailUrl: thumbnailUrl ?? null };
  }
  if (attachment.link) return { kind: 'link', id: null, title: attachment.link.title ?? null, url: attachment.link.url, thumbnailUrl: attachment.link.thumbnailUrl ?? null };
  if (attachment.form) return { kind: 'form', id: null, title: attachment.form.title ?? null, url: attachment.form.formUrl, thumbnailUrl: attachment.form.thumbnailUrl ?? null };
  return null;
}

export function presentSubmission(submission: Submission): SubmissionView {
  const all = (submission.assignmentSubmission?.attachments ?? []).map(presentAttachment).filter((a): a is AttachmentView => a !== null);
  return {
    id: submission.id,
    courseWorkId: submission.courseWorkId,
    userId: submission.userId,
    state: submission.state,
    late: submission.late ?? false,
    updateTime: submission.updateTime ?? null,
    attachments: all.slice(0, MAX_ATTACHMENTS_PER_SUBMISSION),
    attachmentsTruncated: all.length > MAX_ATTACHMENTS_PER_SUBMISSION,
  };
}
