#!/bin/sh
# `helm fleet VERB ...` -> `helm-status remote VERB ...` (or `helm-status push ...`). The launcher is inside this
# folder in the plugin tarball (npm run build:plugin), else beside it: the npm package's or a checkout's
# bin/helm-status.js (`pwd -P` follows the symlink `helm plugin install PATH` makes back to that folder).
# The launcher checks the Node: 20 or newer for the packed bundle, 24 for a checkout (bin/helm-status.js).
set -e
here=$(cd "$(dirname "$0")" && pwd -P)
launcher="$here/bin/helm-status.js"
[ -f "$launcher" ] || launcher="$here/../bin/helm-status.js"
if [ ! -f "$launcher" ]; then
  echo "Error: helm fleet: $launcher is missing; install the plugin from the helm-status package folder" >&2
  exit 1
fi
node=node
command -v node >/dev/null 2>&1 || node="${HELM_STATUS_NODE:?helm fleet needs node on PATH (or HELM_STATUS_NODE)}"
export HELM_STATUS_PROGRAM="helm fleet"
case "$1" in
  push) exec "$node" "$launcher" "$@" ;;
  ""|-h|--help|help) exec "$node" "$launcher" remote --help ;;
  *) exec "$node" "$launcher" remote "$@" ;;
esac
