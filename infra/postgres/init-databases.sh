#!/bin/sh
# Runs once, on the first start of the PostgreSQL container (empty volume): one database and one owner role
# per service, so a service can read only its own data. Passwords come from the environment (infra/.env).
set -eu

create() {
  db="$1"
  password="$2"
  if [ -z "$password" ]; then
    echo "init-databases: no password for $db, refusing to create it" >&2
    exit 1
  fi
  psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
    -v db="$db" -v password="$password" <<'SQL'
CREATE ROLE :"db" LOGIN PASSWORD :'password';
CREATE DATABASE :"db" OWNER :"db";
REVOKE ALL ON DATABASE :"db" FROM PUBLIC;
SQL
}

create auth "${AUTH_DB_PASSWORD:-}"
create tenant "${TENANT_DB_PASSWORD:-}"
create sandbox "${SANDBOX_DB_PASSWORD:-}"
