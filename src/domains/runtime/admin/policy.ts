import { KgateError } from '../../../kernel/errors.ts';
import { hasControlCharacters } from '../../../kernel/control-characters.ts';
import { isUuid } from '../../../kernel/ids.ts';
import {
  MAX_RUNTIME_NAME_LENGTH,
  ProductRuntimeSettingsSchema,
  RuntimeSlugSchema,
  VaultGrantAccessSchema,
  type ProductRuntimeSettings,
  type VaultGrantAccess,
} from '../contract.ts';
import { MAX_RETURN_ORIGINS, type MemoryDecision, type ProductRuntimeSettingsChange } from './contract.ts';

// Pure checks of what administrators send: each refusal is invalid_request with details.field, before anything is read
// or written.

/** Longest return origin or redirect URI. */
const MAX_RETURN_ORIGIN_LENGTH = 2_048;

function invalid(field: string, message: string): KgateError {
  return new KgateError('invalid_request', message, { field });
}

/** The `not_found` every lookup answers for an id that is malformed, unknown or not the caller's. */
export function notFound(what: string): KgateError {
  return new KgateError('not_found', `The ${what} does not exist.`);
}

/** Refuses an id that is not a UUID with `not_found`: a malformed id names nothing, like an unknown one. */
export function assertId(value: unknown, what: string): asserts value is string {
  if (typeof value !== 'string' || !isUuid(value)) throw notFound(what);
}

/** A slug of an organization or product, or invalid_request. */
export function parseSlug(value: unknown, field = 'slug'): string {
  const parsed = RuntimeSlugSchema.safeParse(value);
  if (!parsed.success) throw invalid(field, `The ${field} must be 2 to 64 lowercase letters and digits joined by single hyphens.`);
  return parsed.data;
}

/** A name of an organization or product: trimmed, 1 to MAX_RUNTIME_NAME_LENGTH characters, no control characters. */
export function parseName(value: unknown, field = 'name'): string {
  const name = typeof value === 'string' ? value.trim() : '';
  if (name.length === 0 || name.length > MAX_RUNTIME_NAME_LENGTH || hasControlCharacters(name)) {
    throw invalid(field, `The ${field} has 1 to ${MAX_RUNTIME_NAME_LENGTH} characters and no control characters.`);
  }
  return name;
}

/**
 * One return origin (`https://host[:port]`, stored as the URL's origin) or exact redirect URI (an HTTPS URL with a
 * path, stored as the URL parser writes it), as spec 4.7 registers them on the product definition. No credentials,
 * no fragment, no wildcard: the callback compares what it gets with these exactly.
 */
function parseReturnOrigin(value: unknown, index: number): string {
  const field = `returnOrigins.${index}`;
  const refuse = (why: string) => invalid(field, `Return origin ${index + 1} ${why}.`);
  if (typeof value !== 'string' || value.length === 0) throw refuse('must be an HTTPS origin or redirect URI');
  if (value.length > MAX_RETURN_ORIGIN_LENGTH) throw refuse(`must have at most ${MAX_RETURN_ORIGIN_LENGTH} characters`);
  // The URL parser drops tabs and line feeds and trims spaces: what it would read is not what was written.
  if (/\s/.test(value) || hasControlCharacters(value)) throw refuse('must not contain spaces or control characters');
  if (value.includes('*')) throw refuse('must not contain a wildcard');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse('must be an absolute https: URL');
  }
  if (url.protocol !== 'https:') throw refuse('must use https:');
  if (url.username !== '' || url.password !== '') throw refuse('must not carry a user name or password');
  if (value.includes('#')) throw refuse('must not have a fragment');
  const isOrigin = /^https:\/\/[^/?#]+\/?$/i.test(value);
  return isOrigin ? url.origin : url.href;
}

/** A product's return origins: at most MAX_RETURN_ORIGINS, each checked and normalized, duplicates dropped. */
export function parseReturnOrigins(value: unknown): string[] {
  if (!Array.isArray(value)) throw invalid('returnOrigins', 'returnOrigins must be a list.');
  if (value.length > MAX_RETURN_ORIGINS) throw invalid('returnOrigins', `A product registers at most ${MAX_RETURN_ORIGINS} return origins.`);
  return [...new Set(value.map((item, index) => parseReturnOrigin(item, index)))];
}

const SETTING_NAMES = Object.keys(ProductRuntimeSettingsSchema.shape) as Array<keyof ProductRuntimeSettings>;

/**
 * Applies a change to an organization's settings: a number sets a field, null clears it, a field not named is kept.
 * The result must satisfy ProductRuntimeSettingsSchema; an unknown field is refused, never ignored.
 */
export function mergeSettings(current: ProductRuntimeSettings, change: ProductRuntimeSettingsChange): ProductRuntimeSettings {
  if (typeof change !== 'object' || change === null || Array.isArray(change)) throw invalid('settings', 'The settings change must be an object.');
  const merged: Record<string, unknown> = { ...current };
  for (const [name, value] of Object.entries(change)) {
    if (!SETTING_NAMES.includes(name as keyof ProductRuntimeSettings)) throw invalid(name, `${name} is not a Product Runtime setting.`);
    if (value === null) delete merged[name];
    else if (value !== undefined) merged[name] = value;
  }
  const parsed = ProductRuntimeSettingsSchema.safeParse(merged);
  if (!parsed.success) {
    const field = String(parsed.error.issues[0]?.path[0] ?? 'settings');
    throw invalid(field, `${field} must be a whole number in its range (${parsed.error.issues[0]?.message ?? 'invalid'}).`);
  }
  return parsed.data;
}

/** An installation's intelligence budget sublimit: a whole number of microdollars, or null for none. */
export function parseSublimit(value: unknown): number | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalid('intelligenceBudgetMicrodollarsMonthly', 'The sublimit is a whole number of microdollars (0 or more), or none.');
  }
  return value;
}

/** The access of a vault grant: read, or read and publish. */
export function parseGrantAccess(value: unknown): VaultGrantAccess {
  const parsed = VaultGrantAccessSchema.safeParse(value);
  if (!parsed.success) throw invalid('access', 'A vault grant is read or publish.');
  return parsed.data;
}

/** A person's decision about a memory candidate. */
export function parseDecision(value: unknown): MemoryDecision {
  if (value !== 'accepted' && value !== 'rejected') throw invalid('decision', 'A memory candidate is accepted or rejected.');
  return value;
}
