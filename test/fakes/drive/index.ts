/** The fake Google Drive v3 (and Google OAuth) server for adapter and sync tests; see server.ts. */
export { startDriveFake, type DriveFake, type DriveFakeOptions, type LoggedRequest } from './server.ts';
export { DRIVE_FILE_SCOPE, DRIVE_READONLY_SCOPE, DRIVE_SCOPE, type Consent } from './oauth.ts';
export { FOLDER_MIME, type FakeFile } from './store.ts';
