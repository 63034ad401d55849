/** The fake Google Classroom API v1 server for the delegated connection tests; see server.ts. */
export { startClassroomFake, type ClassroomFake, type ClassroomFakeOptions, type ClassroomRequestLog } from './server.ts';
export { SCOPES as CLASSROOM_SCOPES } from './api.ts';
export type { FakeAttachment, FakeCourse, FakeCourseWork, FakeProfile, FakeSubmission } from './store.ts';
