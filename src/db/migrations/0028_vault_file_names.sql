-- Embeds and links name a stored file by its name as often as by its path (`![[diagram.png]]`); resolving them
-- (files/resolve.ts) looks files up by the last segment of their path key. Without this index every note's relations
-- read scanned all files of the vault.
CREATE INDEX vault_files_vault_name_idx ON vault_files (vault_id, (substring(path_key from '[^/]*$')));
