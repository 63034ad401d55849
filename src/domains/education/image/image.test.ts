import { describe, expect, it } from 'vitest';
import { ImageInputSchema, checkImageBytes, checkImagePlan, composeImagePrompt, imagePlanPrompt, mentions, type ImageInput } from './index.ts';

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
const JPEG = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]);
const GIF = new TextEncoder().encode('GIF89a......');

function input(overrides: Partial<ImageInput['brief']> = {}): ImageInput {
  return ImageInputSchema.parse({
    context: 'teach',
    brief: {
      type: 'diagram',
      topic: 'the water cycle',
      audience: { gradeBand: '3-5', subject: 'science' },
      style: 'flat-vector',
      orientation: 'landscape',
      palette: 'colorblind-safe',
      requiredElements: ['evaporation arrow', 'cloud', 'rain'],
      exclusions: ['people', 'text labels'],
      altTextIntent: 'the order of the stages',
      ...overrides,
    },
  });
}

const plan = (fields: Record<string, string>) =>
  JSON.stringify({
    prompt: 'A flat diagram: the sun warms a lake, an evaporation arrow rises to a cloud, rain falls back to the lake.',
    altText: 'Water rises from a lake as vapour, forms a cloud and falls back as rain, in a loop.',
    promptSummary: 'A looped diagram of evaporation, clouds and rain.',
    ...fields,
  });

describe('the image plan check', () => {
  it('accepts a plan that names every required element and no exclusion', () => {
    const checked = checkImagePlan(plan({}), input());
    expect(checked.ok).toBe(true);
  });

  it.each([
    ['a missing required element', { prompt: 'A lake and a cloud with rain.' }, 'prompt: does not name required element 0'],
    ['an exclusion in the prompt', { prompt: 'An evaporation arrow, a cloud, rain and no people.' }, 'prompt: names exclusion 0'],
    ['an exclusion in plural in the alt text', { altText: 'Text labels show evaporation, a cloud and rain in a loop.' }, 'altText: names exclusion 1'],
    ['"image of" in the alt text', { altText: 'Image of the water cycle with a cloud and rain.' }, 'altText: uses "image of"'],
    ['an empty alt text', { altText: '   ' }, 'altText:'],
    ['a long alt text', { altText: 'x'.repeat(301) }, 'altText:'],
  ])('refuses %s', (_name, fields, problem) => {
    const checked = checkImagePlan(plan(fields), input());
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.problems.join('\n')).toContain(problem);
  });

  it('refuses prose and unknown fields', () => {
    expect(checkImagePlan('Here is your prompt: a cloud', input()).ok).toBe(false);
    expect(checkImagePlan(JSON.stringify({ ...JSON.parse(plan({})), extra: 1 }), input()).ok).toBe(false);
  });

  it('refuses a brief that requires what it excludes', () => {
    expect(ImageInputSchema.safeParse({ ...input(), brief: { ...input().brief, requiredElements: ['happy people'], exclusions: ['people'] } }).success).toBe(false);
  });

  it('matches whole words only', () => {
    expect(mentions('raindrops fall', 'rain')).toBe(false);
    expect(mentions('Clouds, and RAIN!', 'cloud')).toBe(true);
  });
});

describe('the image prompts', () => {
  it('sends the brief as data and composes the constraints itself', () => {
    const chat = imagePlanPrompt(input());
    expect(chat.messages[0]!.role).toBe('system');
    expect(chat.messages[0]!.content).not.toContain('water cycle');
    expect(chat.messages[1]!.content).toContain('water cycle');
    const composed = composeImagePrompt({ prompt: 'P', altText: 'A', promptSummary: 'S' }, input());
    expect(composed).toContain('Do not include: people; text labels.');
    expect(composed).toContain('flat-vector');
  });
});

describe('the image bytes check', () => {
  it('accepts the format asked for and refuses any other', () => {
    expect(checkImageBytes(PNG, 'png').ok).toBe(true);
    expect(checkImageBytes(JPEG, 'png')).toEqual({ ok: false, problems: ['image: the bytes are jpeg, not the png asked for'] });
    expect(checkImageBytes(GIF, 'png')).toEqual({ ok: false, problems: ['image: the bytes are not PNG, JPEG or WebP'] });
  });
});
