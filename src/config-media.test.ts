import { describe, expect, it } from 'vitest';
import { MediaConfigError, parseMediaConfig } from './config-media.ts';

const S3 = {
  KGATE_MEDIA_STORE: 's3',
  KGATE_MEDIA_S3_ENDPOINT: 'https://s3.eu-central-1.amazonaws.com/',
  KGATE_MEDIA_S3_BUCKET: 'school-media',
  KGATE_MEDIA_S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
  KGATE_MEDIA_S3_SECRET_ACCESS_KEY: 'very-secret-value',
};

describe('the private media settings', () => {
  it('keeps media in the database unless told otherwise', () => {
    expect(parseMediaConfig({}, './data')).toEqual({ store: 'database' });
  });

  it('a directory store defaults under the data directory, and needs KGATE_MEDIA_DIR with a database server', () => {
    expect(parseMediaConfig({ KGATE_MEDIA_STORE: 'directory' }, './data/')).toEqual({ store: 'directory', dir: './data/media' });
    expect(parseMediaConfig({ KGATE_MEDIA_STORE: 'directory', KGATE_MEDIA_DIR: '/srv/media' }, undefined)).toEqual({ store: 'directory', dir: '/srv/media' });
    expect(() => parseMediaConfig({ KGATE_MEDIA_STORE: 'directory' }, undefined)).toThrow(/KGATE_MEDIA_DIR: is required/);
  });

  it('an S3 store takes its endpoint, bucket and key, with defaults for the rest', () => {
    expect(parseMediaConfig(S3, undefined)).toEqual({
      store: 's3',
      s3: {
        endpoint: 'https://s3.eu-central-1.amazonaws.com',
        bucket: 'school-media',
        region: 'us-east-1',
        accessKeyId: 'AKIAEXAMPLE',
        secretAccessKey: 'very-secret-value',
        sessionToken: undefined,
        prefix: '',
        addressing: 'path',
        timeoutMs: 30_000,
      },
    });
  });

  it('names every missing or invalid variable, and never shows a secret', () => {
    const missing = (() => {
      try {
        parseMediaConfig({ KGATE_MEDIA_STORE: 's3', KGATE_MEDIA_S3_BUCKET: 'b-1' }, undefined);
      } catch (error) {
        return error;
      }
    })();
    expect(missing).toBeInstanceOf(MediaConfigError);
    expect((missing as Error).message.split('\n')).toEqual([
      'KGATE_MEDIA_S3_ENDPOINT: is required for KGATE_MEDIA_STORE=s3',
      'KGATE_MEDIA_S3_ACCESS_KEY_ID: is required for KGATE_MEDIA_STORE=s3',
      'KGATE_MEDIA_S3_SECRET_ACCESS_KEY: is required for KGATE_MEDIA_STORE=s3',
    ]);
    const invalid = () => parseMediaConfig({ ...S3, KGATE_MEDIA_S3_ENDPOINT: 'ftp://x', KGATE_MEDIA_S3_SECRET_ACCESS_KEY: 'x'.repeat(600), KGATE_MEDIA_STORE: 's3' }, undefined);
    expect(invalid).toThrow(/KGATE_MEDIA_S3_ENDPOINT: must be an http:\/\/ or https:\/\/ URL \(got "ftp:\/\/x"\)/);
    expect(invalid).toThrow(/KGATE_MEDIA_S3_SECRET_ACCESS_KEY: /);
    expect(invalid).not.toThrow(/xxxx/);
    expect(() => parseMediaConfig({ KGATE_MEDIA_STORE: 'tape' }, undefined)).toThrow(/KGATE_MEDIA_STORE/);
  });
});
