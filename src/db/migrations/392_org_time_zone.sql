-- The organization's time zone (docs/notifications.md): chat and e-mail messages show when an
-- incident started in it. An IANA name, checked by the admin API (the runtime's time zone
-- database decides); Brazil's by default, like the language.
ALTER TABLE orgs ADD COLUMN time_zone text NOT NULL DEFAULT 'America/Sao_Paulo';
