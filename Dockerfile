# Builds the single executable and runs it as a non-root user with a data volume.
#   docker build -t switchyard .
#   docker run -p 8080:8080 -v switchyard-data:/data -e OPENAI_API_KEY=sk-... switchyard
FROM oven/bun:1 AS build
WORKDIR /src
COPY package.json package-lock.json* ./
RUN bun install
COPY . .
RUN bun run build

FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --home /data switchyard && mkdir -p /data && chown switchyard /data
COPY --from=build /src/dist/switchyard /usr/local/bin/switchyard
USER switchyard
WORKDIR /data
# The runtime settings `serve` would otherwise re-execute itself for (README, Configuration).
ENV PORT=8080 HOST=0.0.0.0 DATABASE_URL=sqlite:/data/switchyard.db MIMALLOC_PURGE_HOLES_MIN_INTERVAL=1000 BUN_GC_TIMER_DISABLE=1 BUN_CONFIG_MAX_HTTP_REQUESTS=65535
VOLUME ["/data"]
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/switchyard"]
CMD ["serve"]
