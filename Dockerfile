# eval-dag for cluster images: the release binary on a slim base.
#   docker build -t eval-dag:latest .
# Each shard (`eval-dag run … --shard auto/N`) then needs the benchmark
# directory, the model's key in its environment and an output volume.
FROM rust:1-slim-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin eval-dag

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/target/release/eval-dag /usr/local/bin/eval-dag
RUN useradd --create-home eval-dag
USER eval-dag
WORKDIR /work
ENTRYPOINT []
CMD ["eval-dag", "--help"]
