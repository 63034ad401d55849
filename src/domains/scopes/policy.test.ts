import { describe, expect, it } from 'vitest';
import type { Audience, ScopeDefinition } from './contract.ts';
import { inAudience, normalizeDefinition } from './policy.ts';

const definition = (over: Partial<ScopeDefinition>): ScopeDefinition => ({
  name: 'Scope',
  pathPrefixes: [],
  tags: [],
  audience: { minimumRole: 'viewer', agents: true },
  ...over,
});

describe('scope definitions', () => {
  it('store prefixes as canonical folders and tags as keys, sorted and unique', () => {
    const normalized = normalizeDefinition(
      definition({ name: '  Tide  ', pathPrefixes: ['Projects/Tide/', 'Cafe\u0301', 'Projects/Tide'], tags: ['#Project/Tide', 'project/tide', 'Ops'] }),
    );
    expect(normalized).toEqual({
      name: 'Tide',
      pathPrefixes: ['Café/', 'Projects/Tide/'],
      tags: ['ops', 'project/tide'],
      audience: { minimumRole: 'viewer', agents: true },
    });
  });

  it('refuse what is not a folder, a tag, a name or an audience', () => {
    for (const bad of [
      definition({ pathPrefixes: ['../up'] }),
      definition({ pathPrefixes: ['/abs'] }),
      definition({ pathPrefixes: ['  '] }),
      definition({ tags: ['not a tag'] }),
      definition({ tags: ['#123'] }),
      definition({ name: ' ' }),
      definition({ name: 'x'.repeat(101) }),
      definition({ pathPrefixes: Array.from({ length: 21 }, (_, k) => `F${k}`) }),
      definition({ audience: { minimumRole: 'superuser', agents: true } as unknown as Audience }),
    ]) {
      expect(() => normalizeDefinition(bad), JSON.stringify(bad)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    }
  });
});

describe('audiences', () => {
  it('admit roles at or above the minimum, and agents only when the scope says so', () => {
    const editors: Audience = { minimumRole: 'editor', agents: true };
    expect(inAudience(editors, 'owner', 'personal_access_token')).toBe(true);
    expect(inAudience(editors, 'editor', 'oauth')).toBe(true);
    expect(inAudience(editors, 'viewer', 'session')).toBe(false);
    const people: Audience = { minimumRole: 'viewer', agents: false };
    expect(inAudience(people, 'viewer', 'session')).toBe(true);
    for (const credential of ['personal_access_token', 'oauth', 'service_principal', 'operator'] as const) {
      expect(inAudience(people, 'owner', credential)).toBe(false);
    }
  });
});
