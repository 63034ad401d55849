import { describe, expect, it } from 'vitest';
import { StudentSchema, SubmissionSchema } from './client.ts';
import { MAX_ATTACHMENTS_PER_SUBMISSION, presentStudent, presentSubmission } from './present.ts';

describe('Classroom items as products see them', () => {
  it('keeps a student to an id and a name even when Classroom sends an e-mail address and a photo', () => {
    const raw = {
      courseId: '1',
      userId: '42',
      profile: { id: '42', name: { givenName: 'Ada', familyName: 'Byron', fullName: 'Ada Byron' }, emailAddress: 'ada@school.example', photoUrl: '//photo', permissions: [] },
      studentWorkFolder: { id: 'folder' },
    };
    const presented = presentStudent(StudentSchema.parse(raw));
    expect(presented).toEqual({ userId: '42', name: { fullName: 'Ada Byron', givenName: 'Ada', familyName: 'Byron' } });
    expect(JSON.stringify(presented)).not.toMatch(/@|photo|folder/);
  });

  it('keeps a submission to its state and attachment metadata, never a grade or an answer', () => {
    const raw = {
      id: 's1',
      courseWorkId: 'w1',
      userId: '42',
      state: 'RETURNED',
      late: true,
      updateTime: '2026-01-01T00:00:00Z',
      assignedGrade: 7,
      draftGrade: 8,
      submissionHistory: [{ gradeHistory: { pointsEarned: 7 } }],
      shortAnswerSubmission: { answer: 'the answer' },
      assignmentSubmission: {
        attachments: [
          { driveFile: { id: 'd1', title: 'Essay', alternateLink: 'https://drive.google.com/d1', thumbnailUrl: 'https://t/d1' } },
          { link: { url: 'https://example.org/x', title: 'Source' } },
          { youTubeVideo: { id: 'y1', title: 'Clip', alternateLink: 'https://youtu.be/y1' } },
          { form: { formUrl: 'https://forms/f1', responseUrl: 'https://forms/f1/responses', title: 'Quiz' } },
          { somethingNew: { id: 'z' } },
        ],
      },
    };
    const presented = presentSubmission(SubmissionSchema.parse(raw));
    expect(presented).toEqual({
      id: 's1',
      courseWorkId: 'w1',
      userId: '42',
      state: 'RETURNED',
      late: true,
      updateTime: '2026-01-01T00:00:00Z',
      attachments: [
        { kind: 'driveFile', id: 'd1', title: 'Essay', url: 'https://drive.google.com/d1', thumbnailUrl: 'https://t/d1' },
        { kind: 'link', id: null, title: 'Source', url: 'https://example.org/x', thumbnailUrl: null },
        { kind: 'youTubeVideo', id: 'y1', title: 'Clip', url: 'https://youtu.be/y1', thumbnailUrl: null },
        { kind: 'form', id: null, title: 'Quiz', url: 'https://forms/f1', thumbnailUrl: null },
      ],
      attachmentsTruncated: false,
    });
    expect(JSON.stringify(presented)).not.toMatch(/Grade|grade|answer|responses|7|8/);
  });

  it('lists at most the attachment bound per submission and says when there were more', () => {
    const attachments = (n: number) => Array.from({ length: n }, (_, i) => ({ link: { url: `https://example.org/${i}` } }));
    const at = presentSubmission(SubmissionSchema.parse({ id: 's', courseWorkId: 'w', userId: 'u', state: 'TURNED_IN', assignmentSubmission: { attachments: attachments(MAX_ATTACHMENTS_PER_SUBMISSION) } }));
    expect(at.attachments).toHaveLength(MAX_ATTACHMENTS_PER_SUBMISSION);
    expect(at.attachmentsTruncated).toBe(false);
    const past = presentSubmission(SubmissionSchema.parse({ id: 's', courseWorkId: 'w', userId: 'u', state: 'TURNED_IN', assignmentSubmission: { attachments: attachments(MAX_ATTACHMENTS_PER_SUBMISSION + 1) } }));
    expect(past.attachments).toHaveLength(MAX_ATTACHMENTS_PER_SUBMISSION);
    expect(past.attachmentsTruncated).toBe(true);
  });
});
