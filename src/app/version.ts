import { readFileSync } from 'node:fs';
import { packageFile } from '../kernel/package-files.ts';

/** The version of this build, from package.json. */
export const VERSION: string = (JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string }).version;
