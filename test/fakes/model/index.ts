// The fake model server (OpenAI-compatible) and a model port pointed at it.
export { FAKE_DEFAULT_REPLY, FAKE_IMAGE_BYTES, modelEnvOf, startModelFake } from './server.ts';
export type { FakeBehavior, FakeRequest, FakeUsage, ModelFake } from './server.ts';
export { modelPortOf } from './port.ts';
