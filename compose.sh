#!/usr/bin/env bash
# The front door to Bulkhead: build and run compositions, run the tests and the benchmark.
#
#   ./compose.sh run [APP] [PLACEMENT]  build (release) and run an app with its boundaries placed
#                                       by PLACEMENT (default: placements/APP.placement, if any;
#                                       "none" runs every boundary in the host process)
#   ./compose.sh hold [APP] [PLACEMENT] the same, then stay up showing effects until Ctrl-C
#   ./compose.sh list                   list the example apps and the placement files
#   ./compose.sh boundaries APP         list the boundaries of APP that a placement can name
#   ./compose.sh test                   run the whole test suite
#   ./compose.sh bench                  run the benchmark (release build)
set -euo pipefail
cd "$(dirname "$0")"

usage() {
  sed -n '4,12p' "$0" | sed 's/^# //'
  exit 64
}

build_release() {
  for product in "$@"; do swift build -c release --product "$product" >&2; done
}

command="${1:-run}"
[ $# -gt 0 ] && shift
case "$command" in
  run | hold)
    app="${1:-two-counters}"
    placement="${2:-placements/$app.placement}"
    options=()
    if [ "$placement" != none ] && { [ $# -ge 2 ] || [ -f "$placement" ]; }; then
      options+=(--placement "$placement")
    fi
    [ "$command" = hold ] && options+=(--hold)
    build_release parent-host child-worker
    exec .build/release/parent-host --app "$app" "${options[@]}"
    ;;
  list)
    build_release parent-host
    echo "apps:"
    .build/release/parent-host --list | sed 's/^/  /'
    echo "placements:"
    for file in placements/*.placement; do
      echo "  $file: $(grep -v '^#' "$file" | sed 's/#.*//' | xargs)"
    done
    ;;
  boundaries)
    [ $# -eq 1 ] || usage
    build_release parent-host
    exec .build/release/parent-host --boundaries "$1"
    ;;
  test)
    exec swift test "$@"
    ;;
  bench)
    build_release bulkhead-benchmark child-worker
    exec .build/release/bulkhead-benchmark
    ;;
  -h | --help | help)
    usage
    ;;
  *)
    echo "compose.sh: unknown command \"$command\"" >&2
    usage
    ;;
esac
