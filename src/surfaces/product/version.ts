import type { MiddlewareHandler } from 'hono';
import { KgateError } from '../../kernel/errors.ts';
import { RUNTIME_VERSION } from '../../domains/runtime/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { RUNTIME_VERSION_HEADER } from './envelope.ts';

/**
 * The first check of every Product Runtime request (spec 9.4, 7.8): the caller declares the contract version it
 * speaks. Missing or unsupported fails explicitly, before authentication, in the same envelope shape.
 */
export function requireRuntimeVersion(): MiddlewareHandler<HttpEnv> {
  return async (_c, next) => {
    const declared = _c.req.header(RUNTIME_VERSION_HEADER);
    if (declared === undefined || declared.trim() === '') {
      throw new KgateError('runtime_version_required', `Send ${RUNTIME_VERSION_HEADER}: ${RUNTIME_VERSION}, the Product Runtime contract version you speak.`, {
        supported: [RUNTIME_VERSION],
      });
    }
    if (declared.trim() !== String(RUNTIME_VERSION)) {
      throw new KgateError('runtime_version_unsupported', `This server speaks Product Runtime contract version ${RUNTIME_VERSION} only.`, {
        supported: [RUNTIME_VERSION],
      });
    }
    await next();
  };
}
