import { describe, expect, it } from 'vitest';
import { KgateError } from '../../../kernel/errors.ts';
import { parseExperiencePack } from './experience-pack.ts';

function refusalOf(value: unknown): { field: unknown; message: string } {
  try {
    parseExperiencePack(value);
  } catch (error) {
    expect(error).toBeInstanceOf(KgateError);
    const refusal = error as KgateError;
    expect(refusal.code).toBe('invalid_request');
    expect(refusal.message).toContain(String(refusal.details?.field));
    return { field: refusal.details?.field, message: refusal.message };
  }
  throw new Error(`accepted: ${JSON.stringify(value)}`);
}

const nav = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ id: `item-${i}`, label: `Item ${i}`, capability: 'notes.list' }));
const steps = (count: number) => Array.from({ length: count }, (_, i) => ({ id: `step-${i}`, title: `Step ${i}`, capability: 'notes.read' }));
const terms = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`term-${i}`, `Term ${i}`]));

const PLANNER = {
  version: 1,
  presentation: { theme: 'tidewater', density: 'compact' },
  navigation: [
    { id: 'plans', label: 'Plans', capability: 'notes.list' },
    { id: 'generate', label: 'Draft a lesson', capability: 'education.generate' },
  ],
  terminology: { workspace: 'School', vault: 'Plan book', 'context.scope': 'Unit' },
  onboarding: { steps: [{ id: 'bind', title: 'Choose your plan book', capability: 'vault.bind' }] },
  capabilityVisibility: { 'education.generate-image': 'hidden', 'notes.trash': 'visible' },
};

describe('parseExperiencePack accepts', () => {
  it('a full pack, unchanged', () => {
    expect(parseExperiencePack(PLANNER)).toEqual(PLANNER);
  });

  it('the version alone', () => {
    expect(parseExperiencePack({ version: 1 })).toEqual({ version: 1 });
  });

  it('every bound exactly', () => {
    const pack = parseExperiencePack({
      version: 1,
      navigation: nav(20),
      terminology: terms(50),
      onboarding: { steps: steps(10) },
    });
    expect(pack.navigation).toHaveLength(20);
    expect(Object.keys(pack.terminology ?? {})).toHaveLength(50);
    expect(pack.onboarding?.steps).toHaveLength(10);
  });

  it('a navigation item for a capability that is not available here (visibility is not availability)', () => {
    expect(parseExperiencePack({ version: 1, navigation: [{ id: 'a', label: 'A', capability: 'media.audio.store' }] }).navigation).toHaveLength(1);
  });

  it('never lets a __proto__ term reach the prototype', () => {
    const pack = parseExperiencePack(JSON.parse('{"version":1,"terminology":{"__proto__":{"polluted":"yes"}}}'));
    expect(Object.getPrototypeOf(pack.terminology)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('parseExperiencePack refuses, naming the field', () => {
  it.each([
    ['a navigation item for an unknown capability', { navigation: [{ id: 'a', label: 'A', capability: 'education.teleport' }] }, 'navigation.0.capability', 'catalogue'],
    ['an onboarding step for an unknown capability', { onboarding: { steps: [{ id: 'a', title: 'A', capability: 'admin' }] } }, 'onboarding.steps.0.capability', 'catalogue'],
    ['visibility of an unknown capability', { capabilityVisibility: { 'notes.list': 'hidden', 'vaults.all': 'visible' } }, 'capabilityVisibility.vaults.all', 'catalogue'],
    ['a visibility that is neither visible nor hidden', { capabilityVisibility: { 'notes.list': 'enabled' } }, 'capabilityVisibility.notes.list', '"visible" or "hidden"'],
    ['21 navigation items', { navigation: nav(21) }, 'navigation', 'at most 20'],
    ['11 onboarding steps', { onboarding: { steps: steps(11) } }, 'onboarding.steps', 'at most 10'],
    ['51 terms', { terminology: terms(51) }, 'terminology', 'at most 50'],
    ['two navigation items with one id', { navigation: [...nav(2), { id: 'item-0', label: 'Again', capability: 'notes.read' }] }, 'navigation.2.id', 'unique'],
    ['two onboarding steps with one id', { onboarding: { steps: [...steps(1), ...steps(1)] } }, 'onboarding.steps.1.id', 'unique'],
    ['a navigation label over 40 characters', { navigation: [{ id: 'a', label: 'l'.repeat(41), capability: 'notes.list' }] }, 'navigation.0.label', '40'],
    ['a term label over 60 characters', { terminology: { workspace: 'w'.repeat(61) } }, 'terminology.workspace', '60'],
    ['a term that is not an identifier', { terminology: { 'Work Space': 'School' } }, 'terminology.Work Space', 'not a valid key'],
    ['a navigation id that is not an identifier', { navigation: [{ id: 'Plans!', label: 'Plans', capability: 'notes.list' }] }, 'navigation.0.id', 'lowercase'],
    ['an onboarding title with a control character', { onboarding: { steps: [{ id: 'a', title: 'A\u0000', capability: 'notes.list' }] } }, 'onboarding.steps.0.title', 'control'],
    ['an unknown density', { presentation: { density: 'roomy' } }, 'presentation.density', '"comfortable" or "compact"'],
    ['a theme over 40 characters', { presentation: { theme: 't'.repeat(41) } }, 'presentation.theme', '40'],
    ['navigation that is not a list', { navigation: { id: 'a' } }, 'navigation', 'array'],
    ['an unknown top-level field', { layout: 'grid' }, 'layout', 'not a field'],
    ['an unknown navigation field', { navigation: [{ id: 'a', label: 'A', capability: 'notes.list', href: 'https://x' }] }, 'navigation.0.href', 'not a field'],
    ['an unknown presentation field', { presentation: { css: 'body{}' } }, 'presentation.css', 'not a field'],
    ['a scopes field', { scopes: ['notes.publish'] }, 'scopes', 'not a field'],
    ['a grants field', { grants: [{ vault: 'v', access: 'publish' }] }, 'grants', 'not a field'],
    ['an audience field', { audience: 'owners' }, 'audience', 'not a field'],
    ['a scope on a navigation item', { navigation: [{ id: 'a', label: 'A', capability: 'notes.publish', scope: 'notes.publish' }] }, 'navigation.0.scope', 'not a field'],
  ])('%s', (_name, fields, field, words) => {
    const refusal = refusalOf({ version: 1, ...fields });
    expect(refusal.field).toBe(field);
    expect(refusal.message).toContain(words);
  });

  it.each([[{}], [{ version: 2 }], [{ version: '1' }]])('a pack without version 1: %j', (value) => {
    expect(refusalOf(value).field).toBe('version');
  });

  it('a visibility that enables: there is no such value', () => {
    expect(refusalOf({ version: 1, capabilityVisibility: { 'education.generate': 'available' } }).field).toBe('capabilityVisibility.education.generate');
  });

  it('leaves the value it refused unchanged', () => {
    const value = { version: 1, navigation: nav(21) };
    const before = structuredClone(value);
    refusalOf(value);
    expect(value).toEqual(before);
  });
});
