/**
 * Invitation links by e-mail, only when an SMTP server is configured: a local SMTP server (smtp-server, by
 * nodemailer's authors) receives what kgate sends; a server that is down leaves the link on the page and the secret
 * out of the logs.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hiddenField, pageBrowser, signInThroughForm, type PageBrowser } from './support/browser.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';

const PASSWORD = 'a long mail test password';

interface Received {
  to: string[];
  text: string;
}

/** Decodes quoted-printable soft breaks and escapes, enough to read a link back out of a message. */
function unquote(data: string): string {
  return data.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

async function startSmtp(): Promise<{ server: SMTPServer; port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    onData(stream, session, callback) {
      let data = '';
      stream.on('data', (chunk: Buffer) => (data += chunk.toString('utf8')));
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), text: unquote(data) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.server.address() as AddressInfo).port, received };
}

async function signedInOwner(gateway: TestGateway): Promise<PageBrowser> {
  const email = `mail-owner-${randomBytes(4).toString('hex')}@example.test`;
  const owner = await gateway.services.onboarding.bootstrapOwner({ email, password: PASSWORD });
  await gateway.services.accounts.setPlan(owner.accountId, 'team');
  const browser = pageBrowser(gateway.baseUrl);
  expect((await signInThroughForm(browser, email, PASSWORD)).status).toBe(303);
  return browser;
}

async function invite(browser: PageBrowser, fields: Record<string, string>): Promise<string> {
  const team = await (await browser.get('/workspace/team')).text();
  const workspaceId = /name="workspace_id" value="([^"]+)"/.exec(team)![1]!;
  const made = await browser.post('/workspace/team/invite', { csrf: hiddenField(team, 'csrf'), workspace_id: workspaceId, role: 'viewer', ...fields });
  expect(made.status).toBe(200);
  return made.text();
}

const linkOn = (page: string) => /<code class="secret">([^<]+)<\/code>/.exec(page)![1]!.replace(/&amp;/g, '&');

describe('invitation e-mails', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let gateway: TestGateway;

  beforeAll(async () => {
    smtp = await startSmtp();
    gateway = await startTestGateway({ env: { KGATE_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, KGATE_SMTP_FROM: 'kgate <kgate@example.test>' } });
  });
  afterAll(async () => {
    await gateway?.stop();
    await new Promise<void>((resolve) => smtp?.server.close(() => resolve()));
  });

  it('e-mails the link when asked, and shows the same link once on the page', async () => {
    const browser = await signedInOwner(gateway);
    const page = await invite(browser, { email: 'invited@example.test' });
    expect(page).toContain('It was also e-mailed to invited@example.test');
    const link = linkOn(page);
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0]!.to).toEqual(['invited@example.test']);
    expect(smtp.received[0]!.text).toContain(link);
    expect(smtp.received[0]!.text).toContain('viewer');
  });

  it('refuses an address that is not one, and makes no invitation', async () => {
    const browser = await signedInOwner(gateway);
    const before = await gateway.db.query('SELECT id FROM workspace_invitations');
    const team = await (await browser.get('/workspace/team')).text();
    const workspaceId = /name="workspace_id" value="([^"]+)"/.exec(team)![1]!;
    const refused = await browser.post('/workspace/team/invite', { csrf: hiddenField(team, 'csrf'), workspace_id: workspaceId, role: 'viewer', email: 'not an address' });
    expect(refused.status).toBe(400);
    expect(await gateway.db.query('SELECT id FROM workspace_invitations')).toEqual(before);
  });
});

describe('invitation e-mails with the SMTP server down', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    // A port nothing listens on: the connection is refused at once.
    const closed = await startSmtp();
    const port = closed.port;
    await new Promise<void>((resolve) => closed.server.close(() => resolve()));
    gateway = await startTestGateway({ env: { KGATE_SMTP_URL: `smtp://127.0.0.1:${port}`, KGATE_SMTP_FROM: 'kgate@example.test' } });
  });
  afterAll(() => gateway?.stop());

  it('still shows the link, says the mail failed, and logs no secret', async () => {
    const browser = await signedInOwner(gateway);
    const page = await invite(browser, { email: 'someone@example.test' });
    expect(page).toContain('could not be e-mailed');
    const token = new URL(linkOn(page)).searchParams.get('token')!;
    expect(gateway.logs.some((line) => line.includes('invitation e-mail not sent'))).toBe(true);
    expect(gateway.logs.join('\n')).not.toContain(token);
  });
});

describe('invitations without an SMTP server', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway?.stop());

  it('offer no e-mail field: the link is for the person to send', async () => {
    const browser = await signedInOwner(gateway);
    const team = await (await browser.get('/workspace/team')).text();
    expect(team).toContain('Make an invitation link');
    expect(team).not.toContain('name="email"');
  });
});
