#!/bin/sh
# Entrypoint of the locally built temporalio/ui:2.42.1 substitute (scripts/compose-cluster-images.sh):
# the UI server of launcher/cluster/ui (the same ui-server module and version) with the official
# image's settings as docker-compose.yml uses them: TEMPORAL_ADDRESS (the frontend),
# TEMPORAL_UI_PORT (8080), TEMPORAL_UI_IP (0.0.0.0), TEMPORAL_CODEC_ENDPOINT (none).
set -eu
exec cluster-ui \
  --ip "${TEMPORAL_UI_IP:-0.0.0.0}" \
  --port "${TEMPORAL_UI_PORT:-8080}" \
  --temporal-address "${TEMPORAL_ADDRESS:-127.0.0.1:7233}" \
  --codec-endpoint "${TEMPORAL_CODEC_ENDPOINT:-}"
