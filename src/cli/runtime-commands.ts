import { parseArgs } from 'node:util';
import type { OrganizationWithAdmins, ProductRuntimeSettingsChange, RuntimeOrganization, RuntimeProduct } from '../domains/runtime/admin/index.ts';
import { out } from './console.ts';
import { exactly, json, plan, type RuntimeCommandGroup } from './runtime-command-plan.ts';
import { credentialsCommand, keyCommand, principalCommand, secretCommand } from './runtime-credential-commands.ts';
import { withRuntime } from './runtime.ts';
import { UsageError } from './usage-error.ts';

// `kgate runtime ...`: the operator administers Product Runtime organizations and products (docs/runtime.md,
// "Organizations, products, installations") and, as an organization's admin, its service principals and their
// credentials (runtime-credential-commands.ts). Usage mistakes are UsageErrors (exit 2) found before any database opens.

/** A number of a setting, or null for `blank` (an empty value or the word): the field is cleared, which for apiOperationsPerMonth means no cap. */
function settingValue(flag: string, raw: string): number | null {
  if (raw === '' || raw === 'blank') return null;
  if (!/^\d{1,16}$/.test(raw)) throw new UsageError(`--${flag} takes a whole number, or blank to clear it`);
  return Number(raw);
}

const SETTING_FLAGS = {
  'api-operations-per-month': 'apiOperationsPerMonth',
  'intelligence-budget-microdollars': 'intelligenceBudgetMicrodollarsMonthly',
  'max-concurrent-intelligence': 'maxConcurrentIntelligence',
  'media-storage-bytes': 'mediaStorageBytes',
} as const;

function settingsText(organization: RuntimeOrganization): string {
  const s = organization.settings;
  const shown = (value: number | undefined, absent: string) => (value === undefined ? absent : String(value));
  return [
    `  api operations per month:   ${shown(s.apiOperationsPerMonth, 'no cap')}`,
    `  intelligence budget (µ$):   ${shown(s.intelligenceBudgetMicrodollarsMonthly, 'none (metered intelligence fails closed)')}`,
    `  max concurrent intelligence: ${shown(s.maxConcurrentIntelligence, 'not set')}`,
    `  media storage bytes:        ${shown(s.mediaStorageBytes, 'default')}`,
  ].join('\n');
}

function organizationText(o: RuntimeOrganization | OrganizationWithAdmins): string {
  const admins = 'admins' in o ? `\n  admins: ${o.admins.map((a) => a.email).join(', ') || 'none'}` : '';
  return `${o.slug} (${o.name}), ${o.status}, id ${o.id}${admins}\n${settingsText(o)}`;
}

function productText(p: RuntimeProduct): string {
  const origins = p.returnOrigins.length > 0 ? `\n  return origins: ${p.returnOrigins.join(', ')}` : '';
  return `${p.slug} (${p.name}), ${p.status}, id ${p.id}${p.domainPack ? `, domain pack ${p.domainPack}` : ''}${origins}`;
}

const orgCommand: RuntimeCommandGroup = (action, args) => {
  switch (action) {
    case 'create': {
      const usage = 'kgate runtime org create --slug S --name N --admin EMAIL';
      const { values } = exactly(usage, 0, parseArgs({ args, allowPositionals: true, options: { slug: { type: 'string' }, name: { type: 'string' }, admin: { type: 'string' }, json } }));
      if (values.slug === undefined || values.name === undefined || values.admin === undefined) throw new UsageError(`usage: ${usage}`);
      const input = { slug: values.slug, name: values.name, adminEmail: values.admin };
      return plan({ run: ({ runtimeAdmin }) => runtimeAdmin.createOrganization(input), human: (o) => `Created organization ${organizationText(o)}`, json: values.json ?? false });
    }
    case 'settings': {
      const usage = 'kgate runtime org settings S [--api-operations-per-month N|blank] [--intelligence-budget-microdollars N|blank] [--max-concurrent-intelligence N|blank] [--media-storage-bytes N|blank]';
      const setting = { type: 'string' } as const;
      const options = {
        'api-operations-per-month': setting,
        'intelligence-budget-microdollars': setting,
        'max-concurrent-intelligence': setting,
        'media-storage-bytes': setting,
        json,
      };
      const { values, positionals } = exactly(usage, 1, parseArgs({ args, allowPositionals: true, options }));
      const change: ProductRuntimeSettingsChange = {};
      for (const flag of Object.keys(SETTING_FLAGS) as Array<keyof typeof SETTING_FLAGS>) {
        const raw = values[flag];
        if (raw !== undefined) change[SETTING_FLAGS[flag]] = settingValue(flag, raw);
      }
      // Without a change, the command shows the settings as they are (an empty change writes nothing new).
      const slug = positionals[0]!;
      return plan({ run: ({ runtimeAdmin }) => runtimeAdmin.setOrganizationSettings(slug, change), human: (o) => `Settings of ${organizationText(o)}`, json: values.json ?? false });
    }
    case 'suspend':
    case 'resume': {
      const { values, positionals } = exactly(`kgate runtime org ${action} S`, 1, parseArgs({ args, allowPositionals: true, options: { json } }));
      const status = action === 'suspend' ? 'suspended' : 'active';
      const slug = positionals[0]!;
      return plan({ run: ({ runtimeAdmin }) => runtimeAdmin.setOrganizationStatus(slug, status), human: (o) => `Organization ${o.slug} is ${o.status}.`, json: values.json ?? false });
    }
    case 'admin': {
      const [change, ...rest] = args;
      const usage = 'kgate runtime org admin add|remove S EMAIL';
      if (change !== 'add' && change !== 'remove') throw new UsageError(`usage: ${usage}`);
      const { values, positionals } = exactly(usage, 2, parseArgs({ args: rest, allowPositionals: true, options: { json } }));
      const [slug, email] = positionals as [string, string];
      return plan({
        run: ({ runtimeAdmin }) => (change === 'add' ? runtimeAdmin.addOrganizationAdmin(slug, email) : runtimeAdmin.removeOrganizationAdmin(slug, email)),
        human: (o) => `Admins of ${o.slug}: ${o.admins.map((a) => a.email).join(', ')}`,
        json: values.json ?? false,
      });
    }
    case 'list': {
      const { values } = exactly('kgate runtime org list', 0, parseArgs({ args, allowPositionals: true, options: { json } }));
      return plan({
        run: ({ runtimeAdmin }) => runtimeAdmin.listOrganizations(),
        human: (listed) => {
          if (listed.items.length === 0) return 'No organizations.';
          return [...listed.items.map(organizationText), ...(listed.truncated ? ['(more organizations exist than are shown)'] : [])].join('\n');
        },
        json: values.json ?? false,
      });
    }
    default:
      throw new UsageError(`unknown runtime org command: ${action ?? '(none)'}; use create, settings, suspend, resume, admin or list`);
  }
};

const productCommand: RuntimeCommandGroup = (action, args) => {
  switch (action) {
    case 'create': {
      const usage = 'kgate runtime product create --org S --slug P --name N [--domain-pack PACK] [--return-origin URL]...';
      const options = {
        org: { type: 'string' },
        slug: { type: 'string' },
        name: { type: 'string' },
        'domain-pack': { type: 'string' },
        'return-origin': { type: 'string', multiple: true },
        json,
      } as const;
      const { values } = exactly(usage, 0, parseArgs({ args, allowPositionals: true, options }));
      if (values.org === undefined || values.slug === undefined || values.name === undefined) throw new UsageError(`usage: ${usage}`);
      const definition = { slug: values.slug, name: values.name, domainPack: values['domain-pack'] ?? null, returnOrigins: values['return-origin'] ?? [] };
      const org = values.org;
      return plan({ run: ({ runtimeAdmin }) => runtimeAdmin.createProductAsOperator(org, definition), human: (p) => `Created product ${productText(p)}`, json: values.json ?? false });
    }
    case 'retire': {
      const { values, positionals } = exactly('kgate runtime product retire P', 1, parseArgs({ args, allowPositionals: true, options: { json } }));
      const slug = positionals[0]!;
      return plan({ run: ({ runtimeAdmin }) => runtimeAdmin.retireProductAsOperator(slug), human: (p) => `Retired product ${productText(p)}`, json: values.json ?? false });
    }
    default:
      throw new UsageError(`unknown runtime product command: ${action ?? '(none)'}; use create or retire`);
  }
};

/** The groups of `kgate runtime`: the operator's own (`org`, `product`), and those it runs as an organization's admin. */
const GROUPS: Record<string, RuntimeCommandGroup> = {
  org: orgCommand,
  product: productCommand,
  principal: principalCommand,
  secret: secretCommand,
  key: keyCommand,
  credentials: credentialsCommand,
};

/** `kgate runtime GROUP ACTION ...`: Product Runtime administration as the server's operator. */
export async function runtimeCommand(group: string | undefined, args: string[]): Promise<number> {
  const command = group === undefined ? undefined : GROUPS[group];
  if (!command) throw new UsageError(`unknown runtime command: ${group ?? '(none)'}; use ${Object.keys(GROUPS).join(', ')}`);
  const [action, ...rest] = args;
  const planned = await command(action, rest);
  const result = await withRuntime(`kgate runtime ${group}`, ({ services }) => planned.run(services));
  out(planned.json ? `${JSON.stringify(result)}\n` : `${planned.human(result)}\n`);
  return 0;
}
