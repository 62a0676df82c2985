# scim-bridge container image.
#
#   docker build -t scim-bridge .
#   docker run --rm -p 8080:8080 -e REDIS_URL=... -e TARGET_URL=... -e TARGET_TOKEN_FILE=/run/secrets/target-token scim-bridge
#
# Stages: `build` compiles TypeScript with the dev dependencies (tools/build.mjs: the
# reference-target workspace package into reference-target/dist/, then the bridge into dist/);
# `deps` installs the production dependencies alone; the runtime stage copies both dist/ folders,
# the package.json files and those node_modules onto a clean Node image. The bridge's `demo` and
# `reference-target` commands load the package through node_modules/scim-reference-target, the
# workspace link to /app/reference-target.
#
# Both installs see reference-target/package.json: it is a workspace of the root package.json,
# and npm installs its dependencies and links it only when its manifest is there.
#
# Dependencies are installed with `npm install`, not `npm ci`: a lockfile made on a machine whose
# registry lacks some optional platform packages (the msgpackr-extract builds that bullmq pulls in
# for other operating systems) makes `npm ci` report it out of sync. `npm install` honours the
# lockfile for everything present.
#
# Every stage is the official Node.js 24 LTS image on Debian 13 (trixie, Debian's stable release),
# pinned to the minor release that the tests run on: tools/node/package.json pins that release for
# the npm scripts of a checkout, and test/docker/dockerfile.test.ts keeps the two the same. The
# build stage's install also fetches that Node.js build for its npm scripts (a dev dependency); the
# runtime stage gets production dependencies only.

FROM node:24.21-trixie-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY reference-target/package.json ./reference-target/
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY reference-target/tsconfig.json reference-target/tsconfig.build.json ./reference-target/
COPY reference-target/src ./reference-target/src
COPY tools ./tools
COPY src ./src
RUN npm run build

FROM node:24.21-trixie-slim AS deps
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
COPY reference-target/package.json ./reference-target/
RUN npm install --omit=dev --no-audit --no-fund \
  && npm cache clean --force

FROM node:24.21-trixie-slim

ARG VERSION=0.2.0
ARG REVISION=unknown
ARG CREATED=unknown
ARG SOURCE=""

LABEL org.opencontainers.image.title="scim-bridge" \
  org.opencontainers.image.description="Connects an identity provider to the data-analytics platform's SCIM 2.0 API through Redis-backed reconciliation." \
  org.opencontainers.image.licenses="Apache-2.0" \
  org.opencontainers.image.version="${VERSION}" \
  org.opencontainers.image.revision="${REVISION}" \
  org.opencontainers.image.created="${CREATED}" \
  org.opencontainers.image.source="${SOURCE}" \
  org.opencontainers.image.base.name="docker.io/library/node:24.21-trixie-slim"

# tini runs as PID 1: it forwards SIGTERM to node (graceful shutdown, SHUTDOWN_TIMEOUT_SECONDS)
# and reaps zombies. A fixed numeric user lets Kubernetes verify runAsNonRoot without a lookup.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/* \
  && groupadd --system --gid 10001 scim-bridge \
  && useradd --system --uid 10001 --gid scim-bridge --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin scim-bridge

WORKDIR /app
# PORT is deliberately not set here: environment variables override CONFIG_FILE, so an image-level
# PORT would shadow http.port from a mounted config file. The listener defaults to 8080.
ENV NODE_ENV=production

COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/reference-target/dist ./reference-target/dist
COPY package.json ./
COPY reference-target/package.json ./reference-target/
COPY bin ./bin
COPY config ./config

# Files stay root-owned and read-only to the service user; nothing under /app is written at run time.
USER 10001:10001

EXPOSE 8080

# /healthz answers 200 while the process is alive. The slim image has no curl, so Node's fetch asks.
# No --start-period: dockerfilelint 1.8 rejects that option, and three 30 s retries cover start-up.
HEALTHCHECK --interval=30s --timeout=5s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# Node.js 24's V8 lets the young generation grow larger than Node.js 20's did: a full sync of 100,000
# users peaked at 360-394 MB RSS on it, against 226-255 MB on Node.js 20. 16 MB semi-spaces bring
# it back under 300 MB (294-296 MB) at the same speed; npm start and the benches run it so too.
ENTRYPOINT ["/usr/bin/tini", "--", "node", "--max-semi-space-size=16", "bin/scim-bridge.js"]
CMD ["all"]
