/**
 * Usage-receipt integrity: the envelope carries exactly one `service.product-intelligence-usage` receipt, of the
 * endpoint's metered kind, settled, naming the model (provider and model), with whole non-negative token counts, a
 * cost equal to those tokens at the configured prices (recomputed here: rounded up to a whole microdollar, never
 * above the reservation) and the envelope's request id. Offline, the tokens must be exactly what the fake reported.
 */
import { EVAL_ENDPOINTS } from '../endpoints.ts';
import { noAnswer, result, type Check } from './types.ts';

/** The receipt's kind (spec 2.7). */
export const USAGE_RECEIPT_KIND = 'service.product-intelligence-usage';

function whole(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** See the module comment. */
export const usageReceipt: Check = (scenario, _request, envelope, facts) => {
  const failed = noAnswer('usage-receipt', envelope, facts);
  if (failed) return failed;
  const receipts = envelope.receipts.filter((r) => r.kind === USAGE_RECEIPT_KIND);
  if (receipts.length !== 1) return result('usage-receipt', 'fail', `${receipts.length} usage receipts; exactly one expected.`);
  const receipt = receipts[0]!;
  const problems: string[] = [];
  const usage = (receipt.usage ?? {}) as Record<string, unknown>;
  const model = (receipt.model ?? {}) as Record<string, unknown>;
  const expectedKind = EVAL_ENDPOINTS[scenario.endpoint].meteredKind;
  if (receipt.meteredKind !== expectedKind) problems.push(`metered kind ${String(receipt.meteredKind)}, expected ${expectedKind}`);
  if (receipt.outcome !== 'settled') problems.push(`outcome ${String(receipt.outcome)}`);
  if (receipt.requestId !== envelope.requestId || typeof receipt.requestId !== 'string' || receipt.requestId === '') problems.push('request id differs from the envelope\u2019s');
  const usesImage = scenario.endpoint === 'generate-image';
  if (typeof model.provider !== 'string' || model.provider === '') problems.push('no model provider');
  const named = usesImage ? model.image : model.chat;
  if (typeof named !== 'string' || named === '') problems.push(`no ${usesImage ? 'image' : 'chat'} model named`);
  if (facts.expectedModel && named !== (usesImage ? facts.expectedModel.image : facts.expectedModel.chat)) problems.push(`model ${String(named)} is not the configured one`);
  if (!whole(usage.inputTokens) || !whole(usage.outputTokens) || !whole(usage.images)) problems.push('token usage is not whole non-negative numbers');
  if (facts.scriptedUsage && (usage.inputTokens !== facts.scriptedUsage.inputTokens || usage.outputTokens !== facts.scriptedUsage.outputTokens)) {
    problems.push(`tokens ${String(usage.inputTokens)}/${String(usage.outputTokens)}, the model reported ${facts.scriptedUsage.inputTokens}/${facts.scriptedUsage.outputTokens}`);
  }
  let expectedCost: number | undefined;
  if (whole(usage.inputTokens) && whole(usage.outputTokens) && whole(usage.images) && whole(receipt.reservedMicrodollars)) {
    const { inputMicrodollarsPerToken: input, outputMicrodollarsPerToken: output, imageMicrodollars: image } = facts.prices;
    const exact = usage.inputTokens * input + usage.outputTokens * output + usage.images * image;
    expectedCost = Math.min(Math.max(0, Math.ceil(exact - 1e-6)), receipt.reservedMicrodollars);
    if (receipt.costMicrodollars !== expectedCost) problems.push(`cost ${String(receipt.costMicrodollars)} microdollars, the tokens at the configured prices cost ${expectedCost}`);
  } else problems.push('no reservation to bound the cost by');
  const details = { receipt, expectedCost };
  if (problems.length > 0) return result('usage-receipt', 'fail', `Usage receipt: ${problems.join('; ')}.`, details);
  return result('usage-receipt', 'pass', `One settled receipt: ${String(usage.inputTokens)} in, ${String(usage.outputTokens)} out, ${String(receipt.costMicrodollars)} microdollars.`, details);
};
