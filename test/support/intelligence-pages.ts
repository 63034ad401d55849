/**
 * The published intelligence of the page tests: an organization with the product `tutor` (its admin), a customer with
 * an installation of it, an account entitled to nothing; the example pack k8-math published twice (version 1 without
 * its insights, by the operator; version 2 whole, by the organization's admin), a pack of 60 assertions to page
 * through, and a pack whose every text is markup, to show that pack text is rendered as text.
 */
import { loadPack, type ParsedPack } from '../../src/domains/packs/index.ts';
import type { TestGateway } from './gateway.ts';
import { newAccount, type TestAccount } from './oauth-flow.ts';
import { EXAMPLE_PACK_DIR } from './pack-fixtures.ts';

/** The accounts of the published intelligence tests. */
export interface IntelligenceAccounts {
  admin: TestAccount;
  customer: TestAccount;
  stranger: TestAccount;
}

/** The product the packs belong to (the example pack's). */
export const PRODUCT = 'tutor';
/** How many assertions the paging pack has: more than a page of the pack page (50). */
export const CLAUSES = 60;
/** The markup in the unsafe pack's texts: a page that runs any of it sets `window.ran`. */
export const UNSAFE = {
  title: 'Unsafe <em>pack</em>',
  sourceTitle: '<img src=x onerror="window.ran = 1">Standards',
  statement: '<script>window.ran = 1</script>Fractions & "equal parts"',
  quote: '<b>Clause</b> one',
  insight: '</li></ul><script>window.ran = 2</script>',
} as const;

/** A pack with one source of `CLAUSES` lines, each line the evidence of one assertion, all dated 2024-01-10. */
function clausesPack(): ParsedPack {
  const lines = Array.from({ length: CLAUSES }, (_, i) => `Clause ${i + 1}.`);
  return {
    pack: 1,
    product: PRODUCT,
    slug: 'clauses',
    title: 'Sixty clauses',
    sources: [
      {
        id: 'clauses',
        title: 'The clauses',
        citation: 'https://clauses.example/all',
        versions: [{ version: '1', published: '2024-01-10', reported: '2024-01-10', extraction: 1, text: `${lines.join('\n')}\n` }],
      },
    ],
    assertions: lines.map((line, i) => ({
      id: `clause-${i + 1}`,
      statement: `Statement of clause ${i + 1}.`,
      accepted: '2024-01-10',
      evidence: [{ source: 'clauses', version: '1', lines: [i + 1, i + 1] as [number, number], quote: line }],
    })),
    insights: [],
  };
}

/**
 * A pack whose texts are markup, and whose citation is a `javascript:` address: publishing stores what the folder
 * format validated, so the page must not rely on that and shows it as text, never as a link.
 */
function unsafePack(): ParsedPack {
  return {
    pack: 1,
    product: PRODUCT,
    slug: 'unsafe',
    title: UNSAFE.title,
    sources: [
      {
        id: 'unsafe-source',
        title: UNSAFE.sourceTitle,
        citation: 'javascript:window.ran=3',
        versions: [{ version: '1', published: '2024-01-10', reported: '2024-01-10', extraction: 1, text: `${UNSAFE.quote}\n` }],
      },
    ],
    assertions: [
      {
        id: 'unsafe-assertion',
        statement: UNSAFE.statement,
        accepted: '2024-01-10',
        evidence: [{ source: 'unsafe-source', version: '1', lines: [1, 1], quote: UNSAFE.quote }],
      },
    ],
    insights: [{ id: 'unsafe-insight', statement: UNSAFE.insight, availableFrom: '2024-01-10', derivedFrom: ['unsafe-assertion'] }],
  };
}

/** Sets up the organization, product, installation and packs; answers the three accounts. */
export async function publishTestPacks(gateway: TestGateway): Promise<IntelligenceAccounts> {
  const admin = await newAccount(gateway, 'intel-admin');
  const customer = await newAccount(gateway, 'intel-customer');
  const stranger = await newAccount(gateway, 'intel-stranger');
  const { runtimeAdmin, packs } = gateway.services;
  const organization = await runtimeAdmin.createOrganization({ slug: 'riverton', name: 'Riverton Learning', adminEmail: admin.email });
  await runtimeAdmin.createProduct(admin.accountId, organization.id, { slug: PRODUCT, name: 'Riverton Tutor' });
  await runtimeAdmin.install(customer.accountId, PRODUCT);

  const loaded = await loadPack(EXAMPLE_PACK_DIR);
  if (!loaded.ok) throw new Error(`the example pack does not load: ${JSON.stringify(loaded.problems)}`);
  await packs.publish({ ...loaded.pack, insights: [] }, { kind: 'operator' });
  await packs.publish(loaded.pack, { kind: 'account', accountId: admin.accountId });
  await packs.publish(clausesPack(), { kind: 'operator' });
  await packs.publish(unsafePack(), { kind: 'operator' });
  return { admin, customer, stranger };
}
