-- The organization's language (docs/alerts.md, "Language of titles"): the titles and messages
-- Vigia's own collectors write are stored in it. Portuguese by default, like the console and
-- the connectors' texts (SPEC 4.2); an organization may choose English.
ALTER TABLE orgs ADD COLUMN language text NOT NULL DEFAULT 'pt-BR';
ALTER TABLE orgs ADD CONSTRAINT orgs_language_known CHECK (language IN ('pt-BR', 'en'));
