#!/usr/bin/env bash
# The front door to Bulkhead: build and run compositions, run the tests and the benchmark.
#
#   ./compose.sh run [APP]   build (release) and run an example app; default: two-counters
#   ./compose.sh list        list the example apps
#   ./compose.sh test        run the whole test suite
#   ./compose.sh bench       run the benchmark (release build)
set -euo pipefail
cd "$(dirname "$0")"

usage() {
  sed -n '4,7p' "$0" | sed 's/^# //'
  exit 64
}

build_release() {
  swift build -c release --product "$1" >&2
}

command="${1:-run}"
[ $# -gt 0 ] && shift
case "$command" in
  run)
    app="${1:-two-counters}"
    build_release parent-host
    exec .build/release/parent-host --app "$app"
    ;;
  list)
    build_release parent-host
    exec .build/release/parent-host --list
    ;;
  test)
    exec swift test "$@"
    ;;
  bench)
    build_release bulkhead-benchmark
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
