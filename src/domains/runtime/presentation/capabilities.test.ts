import { describe, expect, it } from 'vitest';
import { RUNTIME_SCOPES } from '../contract.ts';
import {
  BUILT_CAPABILITIES,
  CAPABILITIES,
  CAPABILITY_IDS,
  CapabilityAvailabilitySchema,
  NO_IMAGE_MODEL_REASON,
  NO_MODEL_REASON,
  NOT_BUILT_REASON,
  capabilityOf,
  catalogueAvailability,
  isCapabilityId,
} from './capabilities.ts';
import type { CapabilityAvailability } from './capabilities.ts';

const byId = (list: CapabilityAvailability[]) => new Map(list.map((entry) => [entry.id, entry]));

describe('the capability catalogue', () => {
  it('lists each capability once, with a scope the runtime knows or none', () => {
    expect(new Set(CAPABILITY_IDS).size).toBe(CAPABILITY_IDS.length);
    for (const capability of CAPABILITIES) {
      expect(capability.scope === null || RUNTIME_SCOPES.includes(capability.scope)).toBe(true);
      expect(capabilityOf(capability.id)).toBe(capability);
    }
  });

  it('knows only its own ids', () => {
    expect(isCapabilityId('notes.list')).toBe(true);
    expect(isCapabilityId('education.teleport')).toBe(false);
    expect(isCapabilityId('constructor')).toBe(false);
    expect(capabilityOf('toString')).toBeUndefined();
  });

  it('cannot be changed by a caller', () => {
    expect(Object.isFrozen(CAPABILITIES)).toBe(true);
    expect(Object.isFrozen(CAPABILITIES[0])).toBe(true);
  });

  it('gives education intelligence.execute, media its media scopes and publication notes.publish', () => {
    expect(capabilityOf('education.generate')?.scope).toBe('intelligence.execute');
    expect(capabilityOf('education.standards.crosswalk')?.scope).toBe('intelligence.execute');
    expect(capabilityOf('media.audio.store')?.scope).toBe('media.write');
    expect(capabilityOf('media.audio.read')?.scope).toBe('media.read');
    expect(capabilityOf('notes.publish')?.scope).toBe('notes.publish');
    expect(capabilityOf('notes.read')?.scope).toBeNull();
  });
});

describe('availability is honest', () => {
  it('built: the runtime, hosted vault and scope operations (issue 18), education, media and connections (issues 20 and 21)', () => {
    expect([...BUILT_CAPABILITIES].sort()).toEqual(
      [
        'runtime.context',
        'runtime.capabilities',
        'runtime.workspace',
        'runtime.domain-composition',
        'vault.bind',
        'notes.list',
        'notes.read',
        'notes.publish',
        'notes.transactions',
        'notes.trash',
        'scopes.list',
        'scopes.context',
        'scopes.policy',
        'scopes.intelligence',
        'education.projection',
        'education.artifacts.recommend',
        'education.standards.crosswalk',
        'education.generate',
        'education.practice-review',
        'education.assessment-draft',
        'education.quality-review',
        'education.rubric-draft',
        'education.generate-image',
        'education.student-guidance',
        'media.audio.store',
        'media.audio.read',
        'connections.manage',
        'connections.drive',
        'connections.classroom',
        'scopes.memory',
        'memory.candidates',
      ].sort(),
    );
  });

  it('answers nothing unbuilt as available, even with a model configured', () => {
    const list = catalogueAvailability({ built: BUILT_CAPABILITIES, modelConfigured: true, imageModelConfigured: true });
    expect(list.map((entry) => entry.id)).toEqual(CAPABILITY_IDS);
    for (const entry of list) {
      if (BUILT_CAPABILITIES.has(entry.id)) {
        expect(entry.availability).toBe('available');
      } else {
        expect(entry).toMatchObject({ availability: 'unavailable', reasonCode: 'not_built', reason: NOT_BUILT_REASON });
      }
    }
    // Model-backed education stays unavailable without a model and unbuilt; media and connections until they are built.
    for (const entry of list.filter((e) => ['education', 'media', 'connections'].includes(e.family) && !BUILT_CAPABILITIES.has(e.id))) {
      expect(entry.availability).toBe('unavailable');
    }
  });

  it('answers every capability unavailable on a server that has built nothing', () => {
    const list = catalogueAvailability({ built: new Set(), modelConfigured: true });
    expect(list.every((entry) => entry.availability === 'unavailable' && entry.reason === NOT_BUILT_REASON)).toBe(true);
  });

  it('needs a model for the model-backed workflows once they are built, and not for deterministic ones', () => {
    const built = new Set<string>(['education.generate', 'education.projection', 'notes.list']);
    const without = byId(catalogueAvailability({ built, modelConfigured: false }));
    expect(without.get('education.generate')).toMatchObject({ availability: 'unavailable', reasonCode: 'model_not_configured', reason: NO_MODEL_REASON });
    expect(without.get('education.projection')?.availability).toBe('available');
    expect(without.get('notes.list')?.availability).toBe('available');
    const withModel = byId(catalogueAvailability({ built, modelConfigured: true }));
    expect(withModel.get('education.generate')?.availability).toBe('available');
  });

  it('needs an image model besides the chat model for image generation', () => {
    const built = new Set<string>(['education.generate-image', 'education.generate']);
    const chatOnly = byId(catalogueAvailability({ built, modelConfigured: true, imageModelConfigured: false }));
    expect(chatOnly.get('education.generate-image')).toMatchObject({ availability: 'unavailable', reasonCode: 'model_not_configured', reason: NO_IMAGE_MODEL_REASON });
    expect(chatOnly.get('education.generate')?.availability).toBe('available');
    expect(byId(catalogueAvailability({ built, modelConfigured: true, imageModelConfigured: true })).get('education.generate-image')?.availability).toBe('available');
  });

  it('says "not built" before "no model": a missing model is not why an unbuilt capability is missing', () => {
    const entry = byId(catalogueAvailability({ built: new Set(), modelConfigured: false })).get('education.rubric-draft');
    expect(entry).toMatchObject({ reasonCode: 'not_built', reason: NOT_BUILT_REASON });
  });

  it('ignores ids the catalogue does not know in the facts', () => {
    const list = catalogueAvailability({ built: new Set(['education.teleport', 'admin']), modelConfigured: true });
    expect(list.map((entry) => entry.id)).toEqual(CAPABILITY_IDS);
    expect(list.some((entry) => entry.availability === 'available')).toBe(false);
  });

  it('answers in the published shape', () => {
    for (const entry of catalogueAvailability({ built: BUILT_CAPABILITIES, modelConfigured: false })) {
      expect(CapabilityAvailabilitySchema.parse(entry)).toEqual(entry);
    }
  });
});
