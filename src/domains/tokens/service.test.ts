import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../../app/services.ts';
import { sha256Hex } from '../../kernel/hashing.ts';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import { createOwner, type Owner } from '../../../test/support/fixtures.ts';
import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';

describe('personal access tokens', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;
  let now = new Date('2026-11-21T10:00:00Z');
  const clock: Clock = { now: () => now };

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase('owner', clock));
  });
  afterAll(() => db.close());

  const codeOf = async (promise: Promise<unknown>) =>
    promise.then(
      () => 'resolved',
      (error: { code?: string }) => error.code,
    );

  it('stores only the SHA-256 of a token, and lists it by prefix and last four characters', async () => {
    const issued = await services.tokens.issueToken({ accountId: owner.accountId, name: 'laptop' });
    expect(issued.token).toMatch(/^kgp_[0-9A-Za-z]{36}$/);
    const rows = await db.query('SELECT * FROM personal_access_tokens WHERE id = $1', [issued.info.id]);
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(issued.token);
    expect(stored).not.toContain(issued.token.slice(4, 30));
    expect(rows[0]!.token_hash).toBe(sha256Hex(issued.token));
    const everything = JSON.stringify(await db.query('SELECT * FROM personal_access_tokens'));
    expect(everything).not.toContain(issued.token);
    expect(everything).not.toContain(owner.token);

    const listed = (await services.tokens.listTokens(owner.accountId)).find((t) => t.id === issued.info.id);
    expect(listed).toMatchObject({ name: 'laptop', prefix: 'kgp_', lastFour: issued.token.slice(-4) });
    expect(listed!.display).toBe(`kgp_…${issued.token.slice(-4)}`);
    expect(JSON.stringify(listed)).not.toContain(issued.token);
  });

  it('keeps "last used" current within a minute, without a write per request', async () => {
    const issued = await services.tokens.issueToken({ accountId: owner.accountId, name: 'last-used' });
    const lastUsed = async () => (await services.tokens.listTokens(owner.accountId)).find((t) => t.id === issued.info.id)!.lastUsedAt;
    expect(await lastUsed()).toBeNull();
    const first = now;
    await services.tokens.authenticate(issued.token);
    expect(await lastUsed()).toEqual(first);
    // Used again within the minute: the stored time stays, so a busy token costs no write per request.
    now = new Date(first.getTime() + 59_000);
    await services.tokens.authenticate(issued.token);
    expect(await lastUsed()).toEqual(first);
    // Past the minute, the next use records itself.
    now = new Date(first.getTime() + 61_000);
    await services.tokens.authenticate(issued.token);
    expect(await lastUsed()).toEqual(now);
  });

  it('authenticates a valid token to its account, status and plan', async () => {
    const principal = await services.tokens.authenticate(owner.token);
    expect(principal).toMatchObject({ accountId: owner.accountId, status: 'active', plan: 'developer' });
    expect(principal.actor.credentialKind).toBe('personal_access_token');
  });

  it('rejects malformed tokens, bad checksums and unknown tokens as unauthenticated', async () => {
    const flipped = owner.token.slice(0, 10) + (owner.token[10] === 'a' ? 'b' : 'a') + owner.token.slice(11);
    expect(await codeOf(services.tokens.authenticate(flipped))).toBe('unauthenticated');
    expect(await codeOf(services.tokens.authenticate(''))).toBe('unauthenticated');
    expect(await codeOf(services.tokens.authenticate('kgp_short'))).toBe('unauthenticated');
    expect(await codeOf(services.tokens.authenticate(`${owner.token} `))).toBe('unauthenticated');
    const other = await services.tokens.issueToken({ accountId: owner.accountId, name: 'gone' });
    await db.query('DELETE FROM personal_access_tokens WHERE id = $1', [other.info.id]);
    expect(await codeOf(services.tokens.authenticate(other.token))).toBe('unauthenticated');
  });

  it('rotation issues a new secret and the old one stops working at once', async () => {
    const first = await services.tokens.issueToken({ accountId: owner.accountId, name: 'ci' });
    const second = await services.tokens.rotateToken(owner.accountId, first.info.id);
    expect(second.token).not.toBe(first.token);
    expect(second.info.name).toBe('ci');
    expect(await codeOf(services.tokens.authenticate(first.token))).toBe('unauthenticated');
    expect((await services.tokens.authenticate(second.token)).accountId).toBe(owner.accountId);
    expect(await codeOf(services.tokens.rotateToken(owner.accountId, first.info.id))).toBe('conflict');
  });

  it('revocation stops a token at once and is idempotent', async () => {
    const issued = await services.tokens.issueToken({ accountId: owner.accountId, name: 'script' });
    await services.tokens.authenticate(issued.token);
    const revoked = await services.tokens.revokeToken(owner.accountId, issued.info.id);
    expect(revoked.revokedAt).toBeInstanceOf(Date);
    expect(await codeOf(services.tokens.authenticate(issued.token))).toBe('unauthenticated');
    await services.tokens.revokeToken(owner.accountId, issued.info.id);
    expect(await codeOf(services.tokens.authenticate(issued.token))).toBe('unauthenticated');
  });

  it('expired tokens are refused', async () => {
    const issued = await services.tokens.issueToken({
      accountId: owner.accountId,
      name: 'short-lived',
      expiresAt: new Date(now.getTime() + 60_000),
    });
    await services.tokens.authenticate(issued.token);
    now = new Date(now.getTime() + 61_000);
    expect(await codeOf(services.tokens.authenticate(issued.token))).toBe('unauthenticated');
  });

  it("one account cannot rotate or revoke another account's token", async () => {
    const stranger = await createOwner(services, 'stranger');
    const issued = await services.tokens.issueToken({ accountId: owner.accountId, name: 'mine' });
    expect(await codeOf(services.tokens.rotateToken(stranger.accountId, issued.info.id))).toBe('not_found');
    expect(await codeOf(services.tokens.revokeToken(stranger.accountId, issued.info.id))).toBe('not_found');
    expect(await codeOf(services.tokens.revokeToken(stranger.accountId, 'not-a-uuid'))).toBe('not_found');
    expect((await services.tokens.authenticate(issued.token)).accountId).toBe(owner.accountId);
  });

  it('a suspended account gets account_inactive, and works again when reactivated', async () => {
    const member = await createOwner(services, 'suspended');
    await services.accounts.setStatus(member.accountId, 'suspended');
    expect(await codeOf(services.tokens.authenticate(member.token))).toBe('account_inactive');
    await services.accounts.setStatus(member.accountId, 'active');
    expect((await services.tokens.authenticate(member.token)).status).toBe('active');
  });

  it('resolves the plan from the account on every call', async () => {
    const member = await createOwner(services, 'plan');
    await services.accounts.setPlan(member.accountId, 'free');
    expect((await services.tokens.authenticate(member.token)).plan).toBe('free');
  });

  it('rejects empty and overlong names', async () => {
    expect(await codeOf(services.tokens.issueToken({ accountId: owner.accountId, name: '  ' }))).toBe('invalid_request');
    expect(await codeOf(services.tokens.issueToken({ accountId: owner.accountId, name: 'x'.repeat(101) }))).toBe(
      'invalid_request',
    );
  });
});
