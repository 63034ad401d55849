import { describe, expect, it } from 'vitest';
import { KgateError } from '../../../kernel/errors.ts';
import { BrandProfileSchema, parseBrandProfile } from './brand.ts';

/** The refusal of `value`: its field and message; fails the test when the value is accepted. */
function refusalOf(value: unknown): { field: unknown; message: string } {
  try {
    parseBrandProfile(value);
  } catch (error) {
    expect(error).toBeInstanceOf(KgateError);
    const refusal = error as KgateError;
    expect(refusal.code).toBe('invalid_request');
    expect(refusal.message).toContain(String(refusal.details?.field));
    return { field: refusal.details?.field, message: refusal.message };
  }
  throw new Error(`accepted: ${JSON.stringify(value)}`);
}

const FULL = {
  displayName: 'Tidewater Learning',
  colors: { primary: '#1A5FB4', accent: '#e66100', background: '#ffffff', text: '#1b1b1b' },
  logoUrl: 'https://cdn.tidewater.example/logo.svg',
  supportUrl: 'https://help.tidewater.example/contact?from=kgate#top',
  tagline: 'Plans that teach ✏️',
  welcomeText: 'Welcome.\nYour plans are here.',
};

describe('parseBrandProfile accepts', () => {
  it('a full profile, colours in lowercase and URLs as the URL parser reads them', () => {
    expect(parseBrandProfile(FULL)).toEqual({ ...FULL, colors: { ...FULL.colors, primary: '#1a5fb4' } });
  });

  it('a display name alone', () => {
    expect(parseBrandProfile({ displayName: 'Tidewater' })).toEqual({ displayName: 'Tidewater' });
  });

  it('a normalized URL (host in lowercase) and the bounds exactly', () => {
    const profile = parseBrandProfile({
      displayName: 'é'.repeat(80),
      logoUrl: 'https://CDN.Example/Logo.png',
      tagline: '📝'.repeat(140),
      welcomeText: 'w'.repeat(500),
    });
    expect(profile.logoUrl).toBe('https://cdn.example/Logo.png');
    expect(profile.tagline).toHaveLength(280);
  });

  it('black on white, white on black and a pair just above 4.5:1', () => {
    for (const [text, background] of [['#000000', '#ffffff'], ['#FFFFFF', '#000000'], ['#767676', '#ffffff']]) {
      expect(parseBrandProfile({ displayName: 'A', colors: { text, background } }).colors?.text).toBe(text!.toLowerCase());
    }
  });

  it('primary and accent without a text pair', () => {
    expect(parseBrandProfile({ displayName: 'A', colors: { primary: '#00ff00', accent: '#0000ff' } }).colors).toEqual({
      primary: '#00ff00',
      accent: '#0000ff',
    });
  });
});

describe('parseBrandProfile refuses, naming the field', () => {
  it.each([
    ['an http logo URL', { logoUrl: 'http://cdn.example/logo.png' }, 'logoUrl', 'https:'],
    ['a javascript: logo URL', { logoUrl: 'javascript:alert(1)' }, 'logoUrl', 'https:'],
    ['a data: logo URL', { logoUrl: 'data:image/png;base64,AAAA' }, 'logoUrl', 'https:'],
    ['a user:pass@ logo URL', { logoUrl: 'https://user:pass@cdn.example/logo.png' }, 'logoUrl', 'user name or password'],
    ['a user@ support URL', { supportUrl: 'https://user@help.example/' }, 'supportUrl', 'user name or password'],
    ['a relative support URL', { supportUrl: '/help' }, 'supportUrl', 'absolute URL'],
    ['a URL with a tab the parser would drop', { supportUrl: 'https://help.example/\ta' }, 'supportUrl', 'control characters'],
    ['a URL with surrounding spaces', { supportUrl: ' https://help.example/' }, 'supportUrl', 'spaces'],
    ['a URL over 2,048 characters', { logoUrl: `https://cdn.example/${'a'.repeat(2_029)}` }, 'logoUrl', '2048'],
    ['a URL that grows past 2,048 once normalized', { logoUrl: `https://cdn.example/${'é'.repeat(1_000)}` }, 'logoUrl', 'normalized'],
    ['a 9-digit colour', { colors: { primary: '#1a5fb4ff0' } }, 'colors.primary', '#rrggbb'],
    ['an 8-digit colour', { colors: { accent: '#1a5fb4ff' } }, 'colors.accent', '#rrggbb'],
    ['a 3-digit colour', { colors: { primary: '#fff' } }, 'colors.primary', '#rrggbb'],
    ['a named colour', { colors: { primary: 'red' } }, 'colors.primary', '#rrggbb'],
    ['low contrast', { colors: { text: '#777777', background: '#ffffff' } }, 'colors.text', '4.47:1'],
    ['the same colour', { colors: { text: '#336699', background: '#336699' } }, 'colors.text', '1.00:1'],
    ['a text colour without a background', { colors: { text: '#000000' } }, 'colors.background', 'contrast'],
    ['a background without a text colour', { colors: { background: '#ffffff' } }, 'colors.text', 'contrast'],
    ['a display name over 80 characters', { displayName: 'a'.repeat(81) }, 'displayName', '80'],
    ['a blank display name', { displayName: '   ' }, 'displayName', 'blank'],
    ['an empty display name', { displayName: '' }, 'displayName', 'blank'],
    ['a display name with a line feed', { displayName: 'Tide\nwater' }, 'displayName', 'control'],
    ['a display name with a C1 control', { displayName: 'Tide\u0085water' }, 'displayName', 'control'],
    ['a display name with a bidi override', { displayName: 'Tide\u202Ewater' }, 'displayName', 'bidirectional'],
    ['a tagline over 140 characters', { tagline: 't'.repeat(141) }, 'tagline', '140'],
    ['a welcome text over 500 characters', { welcomeText: 'w'.repeat(501) }, 'welcomeText', '500'],
    ['a very long welcome text', { welcomeText: 'w'.repeat(1_000_000) }, 'welcomeText', '500'],
    ['a welcome text with a tab', { welcomeText: 'a\tb' }, 'welcomeText', 'control'],
    ['a tagline that is a number', { tagline: 42 }, 'tagline', 'string'],
    ['colours that are a string', { colors: '#ffffff' }, 'colors', 'object'],
    ['an unknown field', { motto: 'x' }, 'motto', 'not a field'],
    ['an unknown colour', { colors: { link: '#000000' } }, 'colors.link', 'not a field'],
    ['a scopes field', { scopes: ['notes.publish'] }, 'scopes', 'not a field'],
    ['a grants field', { grants: [{ vault: 'v', access: 'publish' }] }, 'grants', 'not a field'],
    ['an audience field', { audience: 'owners' }, 'audience', 'not a field'],
  ])('%s', (_name, fields, field, words) => {
    const refusal = refusalOf({ displayName: 'Tidewater', ...fields });
    expect(refusal.field).toBe(field);
    expect(refusal.message).toContain(words);
  });

  it('a profile without a display name', () => {
    expect(refusalOf({ tagline: 'x' }).field).toBe('displayName');
    expect(refusalOf({ tagline: 'x' }).message).toContain('displayName is required');
  });

  it.each([null, 'Tidewater', 42, []])('a profile that is not an object: %j', (value) => {
    expect(refusalOf(value).field).toBe('(root)');
  });

  it('leaves the value it refused unchanged', () => {
    const value = { displayName: 'A', colors: { primary: '#ABCDEF', text: '#777777', background: '#FFFFFF' } };
    const before = structuredClone(value);
    refusalOf(value);
    expect(value).toEqual(before);
  });

  it('the same way through the schema as through parseBrandProfile', () => {
    expect(BrandProfileSchema.safeParse({ displayName: 'A', audience: 'owners' }).success).toBe(false);
  });
});
