import { AUDIO_CONTENT_TYPES, MAX_AUDIO_BYTES, MAX_AUDIO_DURATION_SECONDS, MAX_MEDIA_REFERENCE_LENGTH } from '../../domains/media/index.ts';
import type { JsonSchema } from '../operations/json-schema.ts';
import { RUNTIME_VERSION_HEADER } from './envelope.ts';
import { MEDIA_DURATION_HEADER, MEDIA_REFERENCE_HEADER } from './media-routes.ts';
import type { ProductRoute } from './routes.ts';

const AUDIO_TYPES = Object.values(AUDIO_CONTENT_TYPES);

function audioContent(description: string): Record<string, JsonSchema> {
  return Object.fromEntries(AUDIO_TYPES.map((type) => [type, { schema: { type: 'string', contentMediaType: type, description } }]));
}

/** The headers a route that carries bytes reads besides those every route takes. */
export function binaryParameters(route: ProductRoute): JsonSchema[] {
  if (route.binding.binary === 'upload') {
    return [
      {
        name: MEDIA_REFERENCE_HEADER,
        in: 'header',
        required: true,
        description: 'Your opaque reference for the recording, stored and answered as it is',
        schema: { type: 'string', minLength: 1, maxLength: MAX_MEDIA_REFERENCE_LENGTH, pattern: '^[\\x21-\\x7e]+$' },
      },
      {
        name: MEDIA_DURATION_HEADER,
        in: 'header',
        required: true,
        description: `Declared duration in seconds, at most ${MAX_AUDIO_DURATION_SECONDS} (three decimals at most); declared, not decoded`,
        schema: { type: 'string', pattern: '^\\d{1,6}(\\.\\d{1,3})?$' },
      },
    ];
  }
  return [
    { name: 'Range', in: 'header', required: false, description: 'One byte range: bytes=start-end, bytes=start- or bytes=-suffix', schema: { type: 'string' } },
    { name: 'If-Range', in: 'header', required: false, description: 'The ETag of the bytes the range continues; another answers the whole object', schema: { type: 'string' } },
  ];
}

/** The raw audio body of an upload. */
export function binaryRequestBody(route: ProductRoute): JsonSchema | undefined {
  if (route.binding.binary !== 'upload') return undefined;
  return { required: true, description: `The audio file itself, at most ${MAX_AUDIO_BYTES} bytes`, content: audioContent('The audio bytes') };
}

/**
 * The answers of a route that carries bytes besides its refusals by code: an upload's envelope is the usual 200; a
 * download's 200 and 206 are the bytes themselves with the version header, Accept-Ranges and the ETag, and a range
 * past the end is a 416 envelope.
 */
export function binaryResponses(route: ProductRoute, envelope: JsonSchema): Record<string, JsonSchema> {
  if (route.binding.binary === 'upload') return { '200': envelope };
  const headers = {
    [RUNTIME_VERSION_HEADER]: { schema: { type: 'string' } },
    'Accept-Ranges': { schema: { const: 'bytes' } },
    ETag: { description: 'The SHA-256 of the bytes, quoted', schema: { type: 'string' } },
    'Content-Length': { schema: { type: 'integer' } },
  };
  return {
    '200': { description: 'The whole recording', headers, content: audioContent('The recording') },
    '206': {
      description: 'One byte range of the recording',
      headers: { ...headers, 'Content-Range': { description: 'bytes start-end/size', schema: { type: 'string' } } },
      content: audioContent('The bytes of the range'),
    },
    '416': {
      description: 'The range starts past the end: problem code `invalid_request` with details.reason `range_not_satisfiable` and the size; Content-Range: bytes */size',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
    },
  };
}
