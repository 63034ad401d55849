import type { GeneratedImage, ImageRequest } from '../contract.ts';
import { BodyTooLarge, encoded, readBounded } from './body.ts';
import { requestIdOf } from './chat.ts';
import type { Connection } from './connection.ts';
import { duringAnswer, invalidOutput } from './failures.ts';
import { withRetries } from './retry.ts';
import { CallScope } from './scope.ts';
import { imageFormatOf } from './signature.ts';
import { ImageWire } from './wire.ts';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The images endpoint's body. GPT image models always answer base64 and refuse `response_format` ("Unknown
 * parameter"); DALL-E and most compatible servers need it to answer base64 rather than a URL we would have to fetch.
 */
export function imagePayload(model: string, request: ImageRequest): Record<string, unknown> {
  return {
    model,
    prompt: request.prompt,
    n: 1,
    size: request.size,
    output_format: request.format,
    ...(/^gpt-image/i.test(model) ? {} : { response_format: 'b64_json' }),
  };
}

/** One generated image, its bytes checked to be the format asked for. */
export async function generateImage(connection: Connection, model: string, request: ImageRequest, timeoutMs: number): Promise<GeneratedImage> {
  const payload = imagePayload(model, request);
  const scope = new CallScope(request.signal, timeoutMs);
  try {
    return await withRetries(scope, connection.limits, async () => {
      const { response, request: outgoing } = await connection.open(scope, '/images/generations', payload, 'application/json');
      const providerRequestId = requestIdOf(response.headers['x-request-id']);
      if (encoded(response)) {
        outgoing.destroy();
        throw invalidOutput('it came compressed although identity was asked for');
      }
      let body: Buffer;
      try {
        body = await readBounded(response, connection.limits.maxImageBytes);
      } catch (error) {
        if (error instanceof BodyTooLarge) {
          outgoing.destroy();
          throw invalidOutput(`it is longer than ${connection.limits.maxImageBytes} bytes`);
        }
        throw duringAnswer(scope, undefined, 'image');
      }
      let json: unknown;
      try {
        json = JSON.parse(body.toString('utf8'));
      } catch {
        throw invalidOutput('it is not JSON');
      }
      const parsed = ImageWire.safeParse(json);
      if (!parsed.success) throw invalidOutput('it carries no base64 image');
      const encodedImage = parsed.data.data[0]!.b64_json.replace(/\s+/g, '');
      if (!BASE64.test(encodedImage)) throw invalidOutput('the image is not base64');
      const bytes = new Uint8Array(Buffer.from(encodedImage, 'base64'));
      const format = imageFormatOf(bytes);
      if (format === undefined) throw invalidOutput('the image is not PNG, JPEG or WebP');
      if (format !== request.format) throw invalidOutput(`the image is ${format}, not the ${request.format} asked for`);
      return { bytes, format, model, ...(providerRequestId === undefined ? {} : { providerRequestId }) };
    });
  } finally {
    scope.close();
  }
}
