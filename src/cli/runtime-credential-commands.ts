import { open } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { Services } from '../app/services.ts';
import type { CredentialInfo, PrincipalInfo } from '../domains/runtime/credentials/index.ts';
import { KgateError } from '../kernel/errors.ts';
import { commandPath } from './console.ts';
import { OperatorError } from './operator-error.ts';
import { exactly, json, plan, type RuntimeCommandGroup } from './runtime-command-plan.ts';
import { UsageError } from './usage-error.ts';

// `kgate runtime principal|secret|key|credentials ...`: service principals of an installation and their client
// credentials (docs/runtime.md, "Credential issuance"). The operator acts as an admin of the principal's organization,
// named by `--as EMAIL`, so the credentials service's own admin check applies and an account is who administered.

/** A public JWK is a few hundred bytes; a file far larger is not one, and is not read whole. */
const MAX_JWK_FILE_BYTES = 16 * 1024;

const as = { type: 'string' } as const;

/** The account `--as` names; an unknown e-mail is refused like an account that administers nothing. */
async function actingAdmin(services: Services, email: string): Promise<string> {
  const account = await services.accounts.findByEmail(email);
  if (!account) throw new KgateError('not_found', `No account has the email ${email}.`);
  return account.id;
}

/** The value of `--as`, which every command here requires. */
function actingEmail(usage: string, email: string | undefined): string {
  if (email === undefined || email.trim() === '') throw new UsageError(`usage: ${usage}`);
  return email;
}

const date = (value: Date | string | null) => (value === null ? 'never' : new Date(value).toISOString());

function principalText(p: PrincipalInfo): string {
  return `${p.id} ${p.name}, ${p.status}, scopes ${p.scopes.join(' ')}, installation ${p.installationId}, created ${date(p.createdAt)}`;
}

/** One credential on one line: what identifies it, never a secret (the stored display is `kgcs_…` and four characters). */
function credentialText(c: CredentialInfo): string {
  const shown = c.kind === 'client_secret' ? `secret ${c.display ?? ''}` : `key id ${c.keyId ?? ''}`;
  return `${c.kind} ${c.id}, ${shown}, ${c.status}, created ${date(c.createdAt)}, last used ${date(c.lastUsedAt)}`;
}

function revokedCredentialText(c: CredentialInfo): string {
  return `Credential ${c.id} (${c.kind}) of principal ${c.principalId} is revoked; tokens issued from it no longer work.`;
}

/** Reads the JWK file of `key add`, at most MAX_JWK_FILE_BYTES, before any database opens. */
async function readJwkFile(path: string): Promise<unknown> {
  let text: string;
  try {
    const file = await open(commandPath(path), 'r');
    try {
      // One byte over the bound tells a file that is too large without reading it whole (a FIFO has no size).
      const buffer = Buffer.alloc(MAX_JWK_FILE_BYTES + 1);
      let length = 0;
      for (;;) {
        const { bytesRead } = await file.read(buffer, length, buffer.length - length, null);
        if (bytesRead === 0) break;
        length += bytesRead;
        if (length === buffer.length) break;
      }
      if (length > MAX_JWK_FILE_BYTES) throw new KgateError('invalid_request', `The JWK file is larger than ${MAX_JWK_FILE_BYTES / 1024} KiB.`, { field: 'jwk' });
      text = buffer.subarray(0, length).toString('utf8');
    } finally {
      await file.close();
    }
  } catch (error) {
    if (error instanceof KgateError) throw error;
    throw new OperatorError(`cannot read the JWK file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // The file's content is never echoed: it may be a private key given by mistake.
    throw new KgateError('invalid_request', 'The JWK file is not JSON.', { field: 'jwk' });
  }
}

/** `kgate runtime principal create|list|revoke`. */
export const principalCommand: RuntimeCommandGroup = (action, args) => {
  switch (action) {
    case 'create': {
      const usage = 'kgate runtime principal create --installation ID --name NAME --scope S [--scope S]... --as EMAIL';
      const options = { installation: { type: 'string' }, name: { type: 'string' }, scope: { type: 'string', multiple: true }, as, json } as const;
      const { values } = exactly(usage, 0, parseArgs({ args, allowPositionals: true, options }));
      const email = actingEmail(usage, values.as);
      const { installation, name, scope } = values;
      if (installation === undefined || name === undefined || scope === undefined) throw new UsageError(`usage: ${usage}`);
      return plan({
        run: async (services) => services.runtimeCredentials.createPrincipal(await actingAdmin(services, email), installation, { name, scopes: scope }),
        human: (p) => `Created service principal ${principalText(p)}`,
        json: values.json ?? false,
      });
    }
    case 'list': {
      const usage = 'kgate runtime principal list --installation ID --as EMAIL';
      const { values } = exactly(usage, 0, parseArgs({ args, allowPositionals: true, options: { installation: { type: 'string' }, as, json } }));
      const email = actingEmail(usage, values.as);
      const installation = values.installation;
      if (installation === undefined) throw new UsageError(`usage: ${usage}`);
      return plan({
        run: async (services) => services.runtimeCredentials.listPrincipals(await actingAdmin(services, email), installation),
        human: (listed) => (listed.length === 0 ? 'No service principals.' : listed.map(principalText).join('\n')),
        json: values.json ?? false,
      });
    }
    case 'revoke': {
      const usage = 'kgate runtime principal revoke PRINCIPAL_ID --as EMAIL';
      const { values, positionals } = exactly(usage, 1, parseArgs({ args, allowPositionals: true, options: { as, json } }));
      const email = actingEmail(usage, values.as);
      const principalId = positionals[0]!;
      return plan({
        run: async (services) => services.runtimeCredentials.revokePrincipal(await actingAdmin(services, email), principalId),
        human: (p) => `Service principal ${p.id} (${p.name}) is revoked; its tokens no longer work.`,
        json: values.json ?? false,
      });
    }
    default:
      throw new UsageError(`unknown runtime principal command: ${action ?? '(none)'}; use create, list or revoke`);
  }
};

/** `revoke CREDENTIAL_ID --as EMAIL`, the same for a secret and a key: a credential id names either. */
function revokeCredential(group: 'secret' | 'key', args: string[]) {
  const usage = `kgate runtime ${group} revoke CREDENTIAL_ID --as EMAIL`;
  const { values, positionals } = exactly(usage, 1, parseArgs({ args, allowPositionals: true, options: { as, json } }));
  const email = actingEmail(usage, values.as);
  const credentialId = positionals[0]!;
  return plan({
    run: async (services) => services.runtimeCredentials.revokeCredential(await actingAdmin(services, email), credentialId),
    human: revokedCredentialText,
    json: values.json ?? false,
  });
}

/** `kgate runtime secret add|revoke`. */
export const secretCommand: RuntimeCommandGroup = (action, args) => {
  switch (action) {
    case 'add': {
      const usage = 'kgate runtime secret add PRINCIPAL_ID --as EMAIL';
      const { values, positionals } = exactly(usage, 1, parseArgs({ args, allowPositionals: true, options: { as, json } }));
      const email = actingEmail(usage, values.as);
      const principalId = positionals[0]!;
      return plan({
        async run(services) {
          const issued = await services.runtimeCredentials.addClientSecret(await actingAdmin(services, email), principalId);
          return { clientId: principalId, credentialId: issued.credentialId, clientSecret: issued.secret };
        },
        // Standard output only, once: the secret is stored as its SHA-256 and never written anywhere else.
        human: (issued) =>
          [
            `Added client secret ${issued.credentialId} to service principal ${issued.clientId}.`,
            `client_id:     ${issued.clientId}`,
            `client_secret: ${issued.clientSecret}`,
            'This secret cannot be shown again: store it now.',
          ].join('\n'),
        json: values.json ?? false,
      });
    }
    case 'revoke':
      return revokeCredential('secret', args);
    default:
      throw new UsageError(`unknown runtime secret command: ${action ?? '(none)'}; use add or revoke`);
  }
};

/** `kgate runtime key add|revoke`. */
export const keyCommand: RuntimeCommandGroup = async (action, args) => {
  switch (action) {
    case 'add': {
      const usage = 'kgate runtime key add PRINCIPAL_ID --jwk FILE [--kid KID] --as EMAIL';
      const { values, positionals } = exactly(usage, 1, parseArgs({ args, allowPositionals: true, options: { jwk: { type: 'string' }, kid: { type: 'string' }, as, json } }));
      const email = actingEmail(usage, values.as);
      if (values.jwk === undefined) throw new UsageError(`usage: ${usage}`);
      const principalId = positionals[0]!;
      const jwk = await readJwkFile(values.jwk);
      const input = values.kid === undefined ? { jwk } : { jwk, keyId: values.kid };
      return plan({
        run: async (services) => services.runtimeCredentials.addPublicKey(await actingAdmin(services, email), principalId, input),
        human: (c) => `Added public key ${c.id} with key id ${c.keyId ?? ''} to service principal ${c.principalId}.`,
        json: values.json ?? false,
      });
    }
    case 'revoke':
      return revokeCredential('key', args);
    default:
      throw new UsageError(`unknown runtime key command: ${action ?? '(none)'}; use add or revoke`);
  }
};

/** `kgate runtime credentials list PRINCIPAL_ID --as EMAIL`: every credential of a principal, never a secret. */
export const credentialsCommand: RuntimeCommandGroup = (action, args) => {
  if (action !== 'list') throw new UsageError(`unknown runtime credentials command: ${action ?? '(none)'}; use list`);
  const usage = 'kgate runtime credentials list PRINCIPAL_ID --as EMAIL';
  const { values, positionals } = exactly(usage, 1, parseArgs({ args, allowPositionals: true, options: { as, json } }));
  const email = actingEmail(usage, values.as);
  const principalId = positionals[0]!;
  return plan({
    run: async (services) => services.runtimeCredentials.listCredentials(await actingAdmin(services, email), principalId),
    human: (listed) => (listed.length === 0 ? 'No credentials.' : listed.map(credentialText).join('\n')),
    json: values.json ?? false,
  });
};
