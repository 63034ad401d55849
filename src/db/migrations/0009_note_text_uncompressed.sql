-- A note's body and its search text are stored out of line without compression (STORAGE EXTERNAL) instead of
-- compressed with pglz first (the default, EXTENDED). Compressing is CPU on every write, inside the database and,
-- on the embedded engine, in WebAssembly; Markdown of a few kilobytes compresses little, so the saving in space is
-- small: a 20,000-note import took 0.6 s less (8.9 s against 9.5 s on PostgreSQL, whose server spent 4.9 s of CPU
-- against 5.5 s) and its notes table grew from 81 to 94 MB (2026-11-24, docs/architecture.md, "Imports overlap
-- parsing and writing"). Reading a body no longer decompresses it either. Rows written before keep their form
-- until they are written again.
ALTER TABLE notes ALTER COLUMN content SET STORAGE EXTERNAL, ALTER COLUMN search_text SET STORAGE EXTERNAL;
