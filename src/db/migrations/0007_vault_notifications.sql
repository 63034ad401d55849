-- Gateways serve hot reads from memory (domains/vaults/authority-cache.ts): the caller's authority over a mapping and
-- each vault's content version, which labels the note bodies they keep. Every change that could make those stale
-- notifies them on one channel, so a change committed by any process reaches every process's cache:
--   v:<vault id>      the vault's notes changed (content_version moved) or the vault is gone;
--   m:<mapping id>    a mapping's flags, owner or target changed, or it is gone;
--   w:<workspace id>  someone's role in the workspace changed, or a member left.
-- A new member needs no notice: caches keep only what a member may do, never that someone is not one.
CREATE FUNCTION kgate_notify_vaults() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'vaults' THEN
    PERFORM pg_notify('kgate_vaults', 'v:' || OLD.id::text);
  ELSIF TG_TABLE_NAME = 'mappings' THEN
    PERFORM pg_notify('kgate_vaults', 'm:' || OLD.id::text);
  ELSE
    PERFORM pg_notify('kgate_vaults', 'w:' || OLD.workspace_id::text);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER vaults_notify_vaults
  AFTER UPDATE OF content_version OR DELETE ON vaults
  FOR EACH ROW EXECUTE FUNCTION kgate_notify_vaults();

CREATE TRIGGER mappings_notify_vaults
  AFTER UPDATE OR DELETE ON mappings
  FOR EACH ROW EXECUTE FUNCTION kgate_notify_vaults();

CREATE TRIGGER workspace_members_notify_vaults
  AFTER UPDATE OR DELETE ON workspace_members
  FOR EACH ROW EXECUTE FUNCTION kgate_notify_vaults();
