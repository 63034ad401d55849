-- The account, as people expect it (docs/security.md, "Browser sessions and sign-in").

-- When the password was last changed by its holder (the account page); null when never changed there.
ALTER TABLE accounts ADD COLUMN password_changed_at timestamptz;

-- The per-account sign-in lock is only short for a client address that has not failed: until this time, even such
-- an address is refused; after it, one attempt from such an address may check its password (and renews it).
ALTER TABLE sign_in_failures ADD COLUMN short_lock_until timestamptz;

-- Failed sign-ins per client address (an IPv4 address or an IPv6 /64), across every account.
CREATE TABLE sign_in_address_failures (
  address_key text PRIMARY KEY,
  failures integer NOT NULL,
  window_started_at timestamptz NOT NULL,
  locked_until timestamptz
);

-- Dynamic client registrations (RFC 7591) per client address, in a fixed window that starts with the first one.
CREATE TABLE oauth_registration_counts (
  address_key text PRIMARY KEY,
  registrations integer NOT NULL,
  window_started_at timestamptz NOT NULL
);

