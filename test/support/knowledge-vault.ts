/**
 * A small vault with every kind of knowledge the workspace's knowledge pages show: decisions (one to be superseded,
 * a callout), commitments with owners and due dates (one long overdue, one done, one without owner), open questions
 * (a callout and a question note) and an entity note edited over time. Due dates are far in the past or future, so
 * that what is overdue does not depend on the day the tests run.
 */
export const KNOWLEDGE_NOTES: Readonly<Record<string, string>> = {
  'Decisions/ADR-1 CouchDB.md': `---
type: decision
status: accepted
decided: 2026-10-06
subject: Offline storage and sync engine
---
# ADR-1: CouchDB replication for offline sync

Use CouchDB on the server and PouchDB on the device.
`,
  'Decisions/ADR-2 SQLite.md': `---
type: decision
status: accepted
decided: 2026-11-03
valid_from: 2026-11-04
subject: Offline storage and sync engine
supersedes: "[[ADR-1 CouchDB]]"
---
# ADR-2: SQLite on the device with a change-log sync

Store all data in SQLite on the device; push the change log in batches when online.
`,
  'Meetings/Pilot Planning.md': `# Pilot planning

> [!decision] Pilot with two crews first
> Start with the Harbor north crews; widen after two weeks.

- [ ] Draft the pilot checklist [owner:: [[Ana Ruiz]]] 📅 2020-01-15 ^checklist
- [ ] Train the crews [owner:: [[Priya Natarajan]]] 📅 2099-02-01
- [ ] Order spare tablets [owner:: [[Ana Ruiz]]] 📅 2099-03-01
- [x] Book the training room [owner:: Jonas Berg] 📅 2020-01-10
- [ ] Write the rollback plan

> [!question] Who pays for the map tiles?
> Per device or a flat fee?
`,
  'Questions/Offline limit.md': `---
type: question
status: open
---
# How long may a device stay offline?
`,
  'Projects/Tidewater.md': `---
type: project
id: tidewater
valid_from: 2026-09-15
status: planning
target_release: 2027-01-18
---
# Tidewater

Field work orders, offline.
`,
};

/** The path of the entity note, and its content after a later edit (new status and release, valid from a later date). */
export const ENTITY_PATH = 'Projects/Tidewater.md';
export const ENTITY_EDITED = `---
type: project
id: tidewater
valid_from: 2026-11-17
status: active
target_release: 2027-02-01
---
# Tidewater

Field work orders, offline. The pilot started.
`;
