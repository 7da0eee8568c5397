# topsync in a container: `topsync run` (the daemon) by default, on the current Node.js LTS (26).
# Build:  docker build -t topsync .
# Run:    docker run -e DATABASE_URL=postgres://… -e RESELLER_API_KEY=… -e ANALYTICS_API_KEY=… \
#           -v $PWD/config.yaml:/app/config.yaml:ro -p 9464:9464 topsync
# Other commands: docker run --rm … topsync purchases list   (the entrypoint is the CLI)

# ---- build: compile TypeScript with the dev dependencies
FROM node:26-trixie-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY tools ./tools
RUN npm run build

# ---- runtime: production dependencies, compiled JS, migrations; no compilers, no dev tools
FROM node:26-trixie-slim AS runtime
ENV NODE_ENV=production
# Not for room (a run keeps some 20 MB alive whatever the queue length) but as a hard bound on the heap: under a
# 2 GB limit V8 also grows the heap by less than twice what survives a collection (topsync holds plain `node` to
# twice itself, src/cli.ts), so a long-lived daemon stays under 150 MB resident.
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
# /healthz on server.port; set TOPSYNC_HEALTH_PORT when the mounted config uses another port.
ENV TOPSYNC_HEALTH_PORT=9464
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.TOPSYNC_HEALTH_PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node is PID 1 and topsync handles SIGTERM itself (graceful stop within server.shutdown_grace).
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "dist/cli.js"]
CMD ["run"]
