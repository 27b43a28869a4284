# syntax=docker/dockerfile:1.7
# hacienda-sandbox image: a local Hacienda (IdP, recepción, public API, test CA) for development (port 4002).
# Build from the repository root (the context needs the workspace and the lockfile):
#   docker build -f infra/docker/hacienda-sandbox.Dockerfile -t cr-einvoice/hacienda-sandbox .
# The image holds the bundled app (dist/main.js), its production dependencies and its migrations: no dev
# dependencies, no sources, no tests, no keys. Every setting comes from the environment at run time
# (infra/.env.example, docs/configuration.md).

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
ARG PNPM_VERSION=10.34.9
ENV PNPM_HOME=/pnpm NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false TURBO_TELEMETRY_DISABLED=1
RUN npm install --global pnpm@${PNPM_VERSION}
WORKDIR /repo
# Dependencies first, keyed on the lockfile only, so a source change does not refetch them.
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store pnpm fetch --store-dir /pnpm/store
COPY . .
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store \
    pnpm install --frozen-lockfile --offline --store-dir /pnpm/store
RUN pnpm exec turbo run build --filter=@cr/hacienda-sandbox
# A self-contained copy of the app with production dependencies only. pnpm 10 deploys a workspace without
# injected packages only with --legacy; node_modules is hoisted so the bundle finds the third-party
# dependencies of the bundled @cr/* packages (which are inside main.js and not needed at run time).
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store \
    pnpm --filter @cr/hacienda-sandbox --prod deploy --legacy --config.node-linker=hoisted --store-dir /pnpm/store /out \
 && rm -rf /out/node_modules/@cr /out/node_modules/.bin \
 && test -f /out/dist/main.js

FROM ${NODE_IMAGE} AS runtime
# Received documents are validated against the official XSDs (mounted at HACIENDA_XSD_DIR) by libxml2 as
# WebAssembly inside the process (ADR 0036): no system package needed.
# The young generation fixed at 4 MB semi-spaces; the old generation is left to Node, which sizes it from
# the container's memory limit (ADR 0031). NODE_OPTIONS set at deploy time replaces this.
ENV NODE_ENV=production SANDBOX_PORT=4002 SANDBOX_HOST=0.0.0.0 METRICS_HOST=0.0.0.0 DATA_DIR=/data HACIENDA_XSD_DIR=/hacienda/xsd HACIENDA_DATA_DIR=/hacienda/cabys NODE_OPTIONS=--max-semi-space-size=4
# glibc's mmap threshold held at its starting 128 KB: large blocks freed go back to the system instead of
# staying resident in malloc's heaps (ADR 0045).
ENV MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY --from=build /out/package.json ./package.json
COPY --from=build /out/node_modules ./node_modules
COPY --from=build /out/dist ./dist
COPY --from=build /out/migrations ./migrations
# The embedded database (only without DATABASE_URL) and any other state live under DATA_DIR.
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 4002
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.SANDBOX_PORT||4002)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--enable-source-maps", "dist/main.js"]
