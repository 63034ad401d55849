/**
 * A partner's product calling the model-backed education operations through the packed @kgate/runtime-sdk, as
 * test/runtime-sdk-hosted.test.ts runs it with Node in the scratch project that installed the tarball. The requests
 * come in EDU_REQUESTS (JSON), the keys to use in EDU_KEYS; each step's envelope is printed in one JSON object.
 * The test scripts the fake model's replies in the order of the steps. Plain JavaScript, as a partner would write it.
 */
export const RUNTIME_SDK_EDUCATION_SCENARIO = String.raw`
import { createHostedRuntime, safetyReceiptOf, usageReceiptOf } from '@kgate/runtime-sdk';

const env = process.env;
const requests = JSON.parse(env.EDU_REQUESTS);
const keys = JSON.parse(env.EDU_KEYS);
const options = { baseUrl: env.KGATE_URL, clientId: env.KGATE_CLIENT_ID, credentials: { clientSecret: env.KGATE_CLIENT_SECRET } };
const runtime = createHostedRuntime({ ...options, retries: 0 });
const steps = {};

// A draft, and the same call again with the same key: the stored answer, no second model call, no new cost.
steps.practice = await runtime.reviewPractice(requests.practice, { idempotencyKey: keys.practice });
steps.practiceReplay = await runtime.reviewPractice(requests.practice, { idempotencyKey: keys.practice });
steps.practiceUsage = usageReceiptOf(steps.practice) ?? null;
steps.assessment = await runtime.draftAssessment(requests.assessment);
// The model refuses the first attempt (model_unavailable: released); the SDK retries with the same key.
steps.qualityRetried = await createHostedRuntime({ ...options, retries: 1, backoff: { baseDelayMs: 0 } }).reviewQuality(requests.quality, { idempotencyKey: keys.quality });
steps.rubric = await runtime.draftRubric(requests.rubric);
steps.rubrics = await runtime.listRubrics({ limit: 10 });
steps.rubricRead = await runtime.getRubric(steps.rubric.data?.rubricId ?? 'missing');
steps.image = await runtime.generateImage(requests.image);
steps.guidance = await runtime.studentGuidance(requests.guidance);
steps.guidanceSafety = safetyReceiptOf(steps.guidance) ?? null;

// Generation as JSON, then as a stream of events, then the stream again with the same key (a replay).
steps.generate = await runtime.generateEducationContent(requests.generate);
steps.stream = [];
for await (const event of runtime.streamEducationContent(requests.generateStream, { idempotencyKey: keys.stream })) steps.stream.push(event);
steps.streamReplay = [];
for await (const event of runtime.streamEducationContent(requests.generateStream, { idempotencyKey: keys.stream })) steps.streamReplay.push(event);

// A stream the product stops partway: aborting its signal closes the connection, which cancels the model request.
const controller = new AbortController();
steps.abort = { seen: [], error: null };
try {
  for await (const event of runtime.streamEducationContent(requests.generateAbort, { signal: controller.signal, idempotencyKey: keys.abort })) {
    steps.abort.seen.push(event.type);
    if (event.type === 'delta') controller.abort();
  }
} catch (error) {
  steps.abort.error = { name: error.name, reason: error.reason, idempotencyKey: error.idempotencyKey };
}

process.stdout.write(JSON.stringify(steps));
`;
