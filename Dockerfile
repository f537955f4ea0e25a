# The society image: every society service of compose.yaml runs from it
# (`society worker --role ROLE`, `society run ... --workers external`, `society nats-config`).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY pyproject.toml README.md ./
COPY bus ./bus
COPY sandbox ./sandbox
COPY roles ./roles
COPY society ./society
RUN pip install . && useradd --uid 10001 --create-home society \
    && mkdir -p /app/runs && chown society /app/runs
COPY scenarios ./scenarios

# Roles run unprivileged; the coder service runs as root only because it talks to the
# host's Docker daemon through its socket (which is root-equivalent anyway).
USER society
ENTRYPOINT ["society", "--log-format", "json", "--log-level", "info"]
CMD ["--help"]
