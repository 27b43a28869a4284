#!/bin/sh
# Runs once, on the first start of the PostgreSQL container (empty volume): one database and one owner role
# per service, so a service can read only its own data. Passwords come from the environment (infra/.env).
# The owners are NOT superusers and cannot CREATE ROLE, so the row-level-security role the tenant-api's
# migrations use (tenant_api_tenant: NOLOGIN, NOBYPASSRLS) is created here, by the superuser, and granted to
# the tenant owner, which then may SET ROLE to it. DB_PREFIX (default empty) prefixes every name (tests).
set -eu

prefix="${DB_PREFIX:-}"

create() {
  db="$prefix$1"
  password="$2"
  if [ -z "$password" ]; then
    echo "init-databases: no password for $db, refusing to create it" >&2
    exit 1
  fi
  psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
    -v db="$db" -v password="$password" <<'SQL'
CREATE ROLE :"db" LOGIN PASSWORD :'password' NOSUPERUSER NOCREATEDB NOCREATEROLE;
CREATE DATABASE :"db" OWNER :"db";
REVOKE ALL ON DATABASE :"db" FROM PUBLIC;
SQL
}

# The tenant-api's row-level-security role: cluster-wide, created once (a second database on the same
# server finds it), granted to the tenant owner.
tenant_rls_role() {
  owner="$prefix$1"
  psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres -v owner="$owner" <<'SQL'
SELECT NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'tenant_api_tenant') AS missing \gset
\if :missing
CREATE ROLE tenant_api_tenant NOLOGIN NOSUPERUSER NOBYPASSRLS NOINHERIT;
\endif
GRANT tenant_api_tenant TO :"owner";
SQL
}

create auth "${AUTH_DB_PASSWORD:-}"
create tenant "${TENANT_DB_PASSWORD:-}"
tenant_rls_role tenant
create sandbox "${SANDBOX_DB_PASSWORD:-}"
