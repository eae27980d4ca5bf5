# Builds the service's binaries; the same image runs the core, the edge, the
# console or the courier app.
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build-release -p courier-server -p courier-edge -p courier-console -p courier-app

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* && useradd --system --uid 10001 courier
COPY --from=build /src/target/release/courier-core /src/target/release/courier-edge \
    /src/target/release/courier-console /src/target/release/courier-app /usr/local/bin/
USER courier
# Public API, gRPC, metrics of the edge and of the core, console, courier app.
EXPOSE 8080 50051 9090 9091 8081 8082
