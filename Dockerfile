# Builds the service's binaries; the same image runs the core, the edge or
# the console.
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p courier-core -p courier-edge -p courier-console

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* && useradd --system --uid 10001 courier
COPY --from=build /src/target/release/courier-core /src/target/release/courier-edge \
    /src/target/release/courier-console /usr/local/bin/
USER courier
# Public API, gRPC, metrics of the edge and of the core, console.
EXPOSE 8080 50051 9090 9091 8081
