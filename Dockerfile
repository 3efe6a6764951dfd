# Production image: the bundle (dist/tandem.mjs and its chunks, scripts/bundle.ts), production
# dependencies only (the bundle loads its native and asset-carrying packages from node_modules),
# non-root, one data volume. scripts/docker-check.sh builds and runs it in CI.
#
# Few layers on purpose: the check's engine stores layers with the vfs driver, which copies the
# whole tree for each one. The build context is an allowlist (.dockerignore).
FROM node:24-trixie-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/protocol/package.json ./packages/protocol/
COPY packages/api/package.json ./packages/api/
COPY packages/client/package.json ./packages/client/
RUN npm ci --no-audit --no-fund
COPY . .
# What ships is assembled in /ship: the bundle and the console, bin/, and the production
# dependencies, with one uWebSockets.js addon, the one for this platform and Node ABI. Both uWS
# packages carry one per platform and Node version (~230 MB together, of which the image needs 7);
# on Node 24 it is @btc-vision/uwebsockets.js's (built against glibc 2.38, which trixie has): the
# @trufflesuite build has none past Node 20. The build stops unless the server's own loader
# (src/collab/listener/choose.ts, which tries both) loads one. The workspaces (packages/: the
# protocol, the API schemas and the SDK, linked as @tandem/*) are inside the bundles and are not shipped.
RUN npm run build \
    && node --import tsx --input-type=module -e "const l = (await import('./src/collab/listener/uws-build.ts')).loadUws(); console.log('uWS', l.build ?? l.missing); if (!l.build) process.exit(1)" \
    && npm prune --omit=dev --no-audit --no-fund \
    && uws="uws_$(node -p 'process.platform + "_" + process.arch + "_" + process.versions.modules').node" \
    && find node_modules/uWebSockets.js node_modules/@btc-vision/uwebsockets.js -name '*.node' ! -name "$uws" -delete \
    && rm -rf node_modules/@tandem \
    && mkdir /ship && mv package.json bin dist node_modules /ship/

FROM node:24-trixie-slim
# MALLOC_ARENA_MAX=2: glibc otherwise gives each thread that allocates (libuv pool running LevelDB,
# PGlite worker, V8 helpers) its own arena, and freed memory stays fragmented in them. In the soak
# (bench/README.md) it took native growth from 2.6 to 0.3 MiB/min and RSS after cool-down from
# 29.5 to 9.1 MiB over idle.
ENV MALLOC_ARENA_MAX=2 \
    NODE_ENV=production \
    TANDEM_DATA_DIR=/data \
    TANDEM_HOST=0.0.0.0 \
    TANDEM_COLLAB_PORT=1234 \
    TANDEM_API_PORT=8080
RUN groupadd --system tandem && useradd --system --gid tandem --home-dir /app --no-create-home tandem \
    && mkdir -p /data && chown tandem:tandem /data
# Owned by root: the server reads its code and writes only to /data.
COPY --from=build /ship /app
WORKDIR /app
USER tandem
VOLUME ["/data"]
EXPOSE 1234 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.TANDEM_COLLAB_PORT||1234)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "bin/tandem.js"]
CMD ["serve"]
