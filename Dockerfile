# stacksync next to Immich: see examples/docker-compose.yml and the README ("Docker"). The release
# workflow builds it for linux/amd64 and linux/arm64 and pushes it to ghcr.io/<owner>/stacksync.
# Build it yourself: docker build -t stacksync .
FROM denoland/deno:2.9.6

WORKDIR /app
# Only what the tool runs on: no tests, no scripts, and never an .env file (.dockerignore).
COPY deno.json deno.lock main.ts ./
COPY src/ src/
# The journals of `stacksync undo` and the backups: mount a volume here to keep them.
RUN mkdir /state && chown deno:deno /state
VOLUME /state
ENV STATE_DIR=/state
# Fetch the pinned npm packages at build time, as the unprivileged user the image runs as, so the
# container starts without network access to a registry and fails the build if deno.lock drifts.
# Only those main.ts imports, fetched now and looked for at run time: deno.lock also holds the
# test tools, among them a Chromium of 60 MB (@sparticuz/chromium).
ENV DENO_UNSTABLE_NPM_LAZY_CACHING=1
USER deno
RUN deno install --frozen-lockfile --entrypoint main.ts

# cron: one pass now, then one every CRON_INTERVAL seconds until `docker stop` (SIGTERM).
ENV RUN_MODE=cron
# Exactly the permissions of `deno task start` and the compiled binaries (scripts/compile.ts).
ENTRYPOINT ["deno", "run", "--allow-net", "--allow-env", "--allow-read", "--allow-write", "--v8-flags=--expose-gc,--max-semi-space-size=4", "main.ts"]
