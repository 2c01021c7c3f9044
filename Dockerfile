# leasecron: build, then a production image with production dependencies only, on the current Node LTS.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: no dependency's lifecycle script runs (the build runs below, once the sources are in).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json worker.config.ts ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build

FROM node:24-slim AS production
ENV NODE_ENV=production
# V8 13 (Node 22+) commits a 16 MiB young generation from the start where Node 20's grows from 1 MiB: an
# idle worker, which allocates little, carried ~10 MiB of RSS for it (npm run bench -- footprint measures
# the image's Node with and without this). 1 MiB semi-spaces cost an idle worker nothing measurable in CPU;
# a worker whose passes allocate heavily can raise it. Without the flag, `leasecron run` holds the young
# generation at 1 MiB itself (src/cli/young-generation.ts); with it, it leaves the size to the flag.
ENV NODE_OPTIONS=--max-semi-space-size=1
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only: what the bundle leaves outside, jiti (TypeScript configurations); mongodb,
# pino, prom-client, zod, node-cron, Octokit and undici are inside dist/bundle and are dev dependencies here. --ignore-scripts:
# no lifecycle script runs in the runtime image; dist/ comes from the build stage.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --from=build --chown=1000:1000 /app/scripts/warm-compile-cache.mjs /tmp/warm-compile-cache.mjs
RUN mkdir .compile-cache && chown 1000:1000 .compile-cache
# The image's non-root `node` user, by number so that Kubernetes' runAsNonRoot can verify it. The root
# filesystem can be mounted read-only (the worker writes nothing outside /tmp).
USER 1000:1000
# V8's compiled code for the bundle, made once here, as the user the worker runs as: Node keys the cache by
# its version and the user id, and reads it from a read-only filesystem, so a pod's first start (its /tmp a
# fresh emptyDir) loads the bundle's modules compiled instead of compiling them (bench/NOTES.md, "compile
# cache"). Another user id or Node compiles as before; where the directory is writable, Node adds to it.
ENV NODE_COMPILE_CACHE=/app/.compile-cache
# With the ENTRYPOINT's V8 flags: V8 keys the cache by its flags too, and a cache made without them is never read.
RUN node --no-opt --no-maglev /tmp/warm-compile-cache.mjs dist/bundle && rm /tmp/warm-compile-cache.mjs
ENV PORT=8080
EXPOSE 8080
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=15s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# --no-opt --no-maglev: no optimizing compiler (TurboFan, Maglev) — the worker runs in V8's interpreter and
# its baseline compiler (Sparkplug). An idle worker's RSS on Node 24 is ~12 MiB lower (86 → 74 MiB, ten nets
# at the shipped pace): the compilers' code in the `node` binary is never paged in, and neither their zones
# nor optimized code are kept. The passes are I/O (Mongo, the forge): the two shipped nets every second
# spent the same CPU with and without (bench/NOTES.md, "Node 24 under 80 MiB"). V8 flags, so not in
# NODE_OPTIONS (Node refuses them there); a CPU-heavy net can drop them with `--entrypoint node`.
ENTRYPOINT ["node", "--no-opt", "--no-maglev", "dist/bundle/leasecron.js"]
CMD ["run"]
