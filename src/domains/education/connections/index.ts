/** Delegated provider connections (spec 4.7): Google connections of product installations, Drive and Classroom round trips. */
export {
  CLASSROOM_COURSES_SCOPE,
  CLASSROOM_COURSEWORK_SCOPE,
  CLASSROOM_ROSTERS_SCOPE,
  ConnectionServiceSchema,
  ConnectionViewSchema,
  DRIVE_FILE_SCOPE,
  DRIVE_IMPORT_CEILINGS,
  MAX_CLIENT_STATE_LENGTH,
  MAX_DRIVE_WRITE_BYTES,
  SERVICE_SCOPES,
} from './contract.ts';
export type { ConnectionOwner, ConnectionService, ConnectionView, GoogleConnectionSettings } from './contract.ts';
export { MAX_RETURN_TARGET_LENGTH } from './return-targets.ts';
export type { DriveFileView, DriveImportLimits, DriveRoundTrips, ImportedDriveFile, WriteClaim, WrittenDriveFile } from './drive.ts';
export type { ClassroomRoundTrips, ListingPage, NewAssignment } from './classroom-round-trips.ts';
export { MAX_ATTACHMENTS_PER_SUBMISSION } from './classroom/present.ts';
export type { AssignmentView, AttachmentView, CourseView, StudentView, SubmissionView } from './classroom/present.ts';
export type { CallbackOutcome, CallbackParams, StartedConnection, StartRequest } from './lifecycle.ts';
export { createEducationConnectionsService } from './service.ts';
export type { EducationConnectionsDeps, EducationConnectionsService } from './service.ts';
