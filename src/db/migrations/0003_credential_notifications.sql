-- Gateways cache resolved credentials in memory (domains/tokens/credential-cache.ts). Every change that could
-- withdraw or narrow access notifies them on one channel with the account id, so a revocation, rotation,
-- suspension or plan change made by any process reaches every process's cache when it commits.
CREATE FUNCTION kgate_notify_credentials() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'accounts' THEN
    PERFORM pg_notify('kgate_credentials', OLD.id::text);
  ELSE
    PERFORM pg_notify('kgate_credentials', OLD.account_id::text);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER accounts_notify_credentials
  AFTER UPDATE OR DELETE ON accounts
  FOR EACH ROW EXECUTE FUNCTION kgate_notify_credentials();

-- Not on last_used_at: touching a token is not a change of access, and happens about once a minute per token.
CREATE TRIGGER personal_access_tokens_notify_credentials
  AFTER UPDATE OF account_id, token_hash, expires_at, revoked_at OR DELETE ON personal_access_tokens
  FOR EACH ROW EXECUTE FUNCTION kgate_notify_credentials();
