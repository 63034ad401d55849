import type { MediaConfig } from '../config-media.ts';
import type { Database } from '../db/port.ts';
import { createMediaService, databaseMediaStore, directoryMediaStore, s3MediaStore, type MediaService, type MediaStore } from '../domains/media/index.ts';
import type { Clock } from '../kernel/clock.ts';

/** The media store the configuration names (docs/operations.md, "Private media"). */
export function mediaStoreOf(config: MediaConfig, db: Database): MediaStore {
  switch (config.store) {
    case 'database':
      return databaseMediaStore(db);
    case 'directory':
      return directoryMediaStore(config.dir);
    case 's3': {
      const { accessKeyId, secretAccessKey, sessionToken, ...where } = config.s3;
      return s3MediaStore({ ...where, credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } });
    }
  }
}

/** The media service over the configured store. */
export function mediaServiceOf(config: MediaConfig, db: Database, clock: Clock): MediaService {
  return createMediaService({ db, store: mediaStoreOf(config, db), clock });
}
