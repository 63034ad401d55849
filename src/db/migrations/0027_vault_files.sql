-- Canvases and attachments of hosted vaults (docs/vaults.md): every file of an Obsidian vault that is not a Markdown
-- note, kept byte for byte so that an export gives back the folder that was imported. Notes stay in `notes`; a file's
-- path never ends in `.md`, so a note and a file never share a path.
CREATE TABLE vault_files (
  id uuid PRIMARY KEY,
  vault_id uuid NOT NULL REFERENCES vaults (id) ON DELETE CASCADE,
  -- Canonical (NFC) vault-relative path, and its case-folded uniqueness key, as for notes (kernel/vault-path.ts).
  path text NOT NULL,
  path_key text NOT NULL,
  -- 'canvas': a JSON Canvas file (`.canvas`); 'attachment': anything else (images, PDFs, audio, ...).
  kind text NOT NULL CHECK (kind IN ('canvas', 'attachment')),
  -- Decided from the extension (and for images checked against the signature) when stored; served as is.
  media_type text NOT NULL,
  content bytea NOT NULL,
  -- 'sha256:' + hex of the bytes: the revision an expectedHash names.
  content_hash text NOT NULL,
  size integer NOT NULL CHECK (size >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (vault_id, path_key)
);
-- Inventory pages in path order, and the vault's total for its storage ceiling.
CREATE INDEX vault_files_vault_path_idx ON vault_files (vault_id, path COLLATE "C");

-- A deleted file's last bytes, written before the live file is removed, so that it can be restored (like
-- trash_entries for notes; a separate table, so that the note trash keeps its text column and its readers).
CREATE TABLE vault_file_trash (
  id uuid PRIMARY KEY,
  vault_id uuid NOT NULL REFERENCES vaults (id) ON DELETE CASCADE,
  original_path text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('canvas', 'attachment')),
  media_type text NOT NULL,
  content bytea NOT NULL,
  content_hash text NOT NULL,
  size integer NOT NULL CHECK (size >= 0),
  deleted_at timestamptz NOT NULL DEFAULT now(),
  deleted_by uuid NOT NULL REFERENCES accounts (id),
  restored_at timestamptz
);
CREATE INDEX vault_file_trash_vault_idx ON vault_file_trash (vault_id, deleted_at DESC);
