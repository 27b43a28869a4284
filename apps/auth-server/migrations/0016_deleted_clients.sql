-- Bases of deleted clients. The base is also the tenant in the tenant-api, whose issuers (with their Hacienda
-- credentials and .p12) and documents are kept for years (tax records), so a deleted base stays reserved:
-- creating a client with it is refused unless the admin says `reclaim` (ADR 0065), which hands that data to
-- the new client. clients.ts moves a row here and back in one statement each. deleted_at is Unix milliseconds.
CREATE TABLE deleted_clients (
  base        text PRIMARY KEY,
  deleted_at  bigint NOT NULL
);
