/**
 * @kgate/runtime-sdk: the partner SDK of the kgate Product Runtime, contract V1 (spec 1.6 to 1.11, 4.7).
 * createHostedRuntime speaks to a kgate server; createLocalRuntime works on a local folder of Markdown notes and
 * never uploads. Both answer every operation with a V1 envelope.
 */
export { createHostedRuntime, type HostedCredentials, type HostedRuntimeOptions } from './hosted.js';
export { createLocalRuntime, LOCAL_VAULT_ID, LOCAL_WORKSPACE_ID, type LocalRuntimeOptions } from './local.js';
export { RuntimeTransportError, type RuntimeTransportFailure } from './errors.js';
export { RUNTIME_CONTRACT_VERSION, hasData, isRuntimeEnvelope } from './envelope.js';
export type * from './envelope.js';
export type { AssertionAlgorithm } from './hosted/client-assertion.js';
export type * from './runtime.js';
export { safetyReceiptOf, usageReceiptOf } from './education-data.js';
export type * from './education-data.js';
