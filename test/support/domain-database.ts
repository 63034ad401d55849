import type { Database } from '../../src/db/port.ts';
import type { Clock } from '../../src/kernel/clock.ts';
import { createServices, type Services } from '../../src/app/services.ts';
import { openTestDatabase } from './database.ts';
import { createOwner, type Owner } from './fixtures.ts';

/** What a domain test starts from: a fresh migrated database, the services over it, and one owner. */
export interface DomainDatabase {
  db: Database;
  services: Services;
  owner: Owner;
}

/** Opens a fresh database on the project's engine, builds the services (with `clock` if given) and an owner. */
export async function openDomainDatabase(label = 'owner', clock?: Clock): Promise<DomainDatabase> {
  const { db } = await openTestDatabase();
  const services = createServices(db, clock);
  return { db, services, owner: await createOwner(services, label) };
}
