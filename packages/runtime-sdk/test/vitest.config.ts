// The SDK's own test run (`npm test` in packages/runtime-sdk): its tests are engine-free and need none of the root
// project's setup. The root vitest.config.ts runs them too once it collects packages/runtime-sdk/test.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: { include: ['test/**/*.test.ts'], testTimeout: 60_000 },
});
