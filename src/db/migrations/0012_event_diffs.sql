-- The unified diff of a change that replaced a note's content (an update, a move that changed it, a link rewrite),
-- kept with its provenance event so that people can see what an agent changed (docs/workspace.md). Null for
-- creations, deletions and restores, whose content is the note itself or its trash entry, and for events recorded
-- before this column existed. Read only when asked (list events with diffs), so feeds stay small.
ALTER TABLE provenance_events ADD COLUMN diff text;
