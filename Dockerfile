# topsync in a container: `topsync run` (the daemon) by default, on the current Node.js LTS (26).
# Build:  docker build -t topsync .
# Run:    docker run -e DATABASE_URL=postgres://… -e RESELLER_API_KEY=… -e ANALYTICS_API_KEY=… \
#           -v $PWD/config.yaml:/app/config.yaml:ro -p 9464:9464 topsync
# Other commands: docker run --rm … topsync purchases list   (the entrypoint is the CLI)

# The base image, one reference for both stages. It is named by tag, not yet by digest: this Dockerfile was written
# where no registry could be reached, and a digest not read from the registry would be invented. Pin it for
# reproducible builds: `docker buildx imagetools inspect node:26-trixie-slim` prints the digest of the tag now;
# set the default below to node:26-trixie-slim@sha256:<that digest> (or pass --build-arg NODE_IMAGE=…), and
# refresh it the same way when the Node.js or Debian images get security fixes.
ARG NODE_IMAGE=node:26-trixie-slim

# ---- build: compile TypeScript with the dev dependencies
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY tools ./tools
RUN npm run build

# ---- runtime: production dependencies, compiled JS, migrations; no compilers, no dev tools
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# Not for room (a run keeps some 20 MB alive whatever the queue length) but as a hard bound on the heap: under a
# 2 GB limit V8 also grows the heap by less than twice what survives a collection (topsync holds plain `node` to
# twice itself, src/cli.cts), so a long-lived daemon stays under 150 MB resident.
ENV NODE_OPTIONS=--max-old-space-size=1024
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY drizzle ./drizzle
COPY config.yaml ./config.yaml
# The embedded database (used only without DATABASE_URL) lives in /app/.topsync; mount a volume there.
RUN mkdir -p /app/.topsync && chown -R node:node /app/.topsync
USER node
EXPOSE 9464
# /healthz on server.port (the process is alive); set TOPSYNC_HEALTH_PORT when the mounted config uses another
# port. Not `topsync doctor --quick`: it would mark the container unhealthy while the database is away, and an
# orchestrator restarting it for that gains nothing (the daemon waits for the database and goes on). Run
# `docker exec CONTAINER node dist/cli.cjs doctor` to see whether the installation can work, check by check.
ENV TOPSYNC_HEALTH_PORT=9464
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.TOPSYNC_HEALTH_PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node is PID 1 and topsync handles SIGTERM itself (graceful stop within server.shutdown_grace).
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "dist/cli.cjs"]
CMD ["run"]
