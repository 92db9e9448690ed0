#!/usr/bin/env bash
# The front door to Bulkhead: build and run compositions, run the tests and the benchmark.
#
#   ./compose.sh run [APP] [PLACEMENT]  build (release) and run an app with its boundaries placed
#                                       by PLACEMENT (default: placements/APP.placement, if any;
#                                       "none" runs every boundary in the host process)
#   ./compose.sh hold [APP] [PLACEMENT] the same, then stay up showing effects until Ctrl-C
#                                       (run and hold take --trace FILE anywhere: write a trace
#                                       for ui.perfetto.dev or chrome://tracing to FILE)
#   ./compose.sh list                   list the apps and the placement files
#   ./compose.sh boundaries APP         list the boundaries of APP that a placement can name
#   ./compose.sh test                   run the whole test suite (this package and Samples/)
#   ./compose.sh bench                  run the benchmark (release build)
#
# run, hold, list and boundaries take --package PATH --product NAME first, to use the apps of
# another package's executable (one whose main calls HostCommand.main) instead of the
# built-in examples: ./compose.sh run --package Samples/Guestbook --product guestbook
set -euo pipefail
caller="$PWD"
cd "$(dirname "$0")"
root="$PWD"

usage() {
  sed -n '4,17p' "$0" | sed 's/^# \{0,1\}//'
  exit 64
}

fail() {
  echo "compose.sh: $*" >&2
  exit 64
}

# PATH as the caller meant it: relative to the directory compose.sh was run from, tidied.
from_caller() {
  case "$1" in
    /*) realpath -m "$1" ;;
    *) realpath -m "$caller/$1" ;;
  esac
}

# The packages whose tests `test` runs besides this one's.
samples=(Samples/Guestbook)

command="${1:-run}"
[ $# -gt 0 ] && shift

# The host to run: the built-in parent-host, or --package PATH --product NAME.
package=""
product=""
while [ $# -gt 0 ]; do
  case "$1" in
    --package)
      [ $# -ge 2 ] || fail "--package needs a path"
      [ -z "$package" ] || fail "--package given twice"
      package="$(from_caller "$2")"
      shift 2
      ;;
    --product)
      [ $# -ge 2 ] || fail "--product needs a name"
      [ -z "$product" ] || fail "--product given twice"
      product="$2"
      shift 2
      ;;
    *) break ;;
  esac
done
if [ -n "$package" ] || [ -n "$product" ]; then
  [ -n "$package" ] && [ -n "$product" ] || fail "--package and --product go together"
  [ -f "$package/Package.swift" ] || fail "no Package.swift in $package"
fi

# Builds the host (and the built-in worker) in release and sets $host and $placements.
build_host() {
  if [ -n "$package" ]; then
    swift build -c release --package-path "$package" --product "$product" >&2 ||
      fail "could not build the product \"$product\" of $package (SwiftPM's message is above)"
    host="$(swift build -c release --package-path "$package" --show-bin-path)/$product"
    placements="$package/placements"
    # A host answers this flag; any other executable would take it as something else.
    [ "$(timeout 10 "$host" --bulkhead-host 2>/dev/null || true)" = "bulkhead host" ] ||
      fail "the product \"$product\" is not a Bulkhead host: its main must call HostCommand.main(apps:)"
  else
    for built in parent-host child-worker; do swift build -c release --product "$built" >&2; done
    host="$root/.build/release/parent-host"
    placements=placements
  fi
}

case "$command" in
  run | hold)
    trace=()
    positional=()
    while [ $# -gt 0 ]; do
      if [ "$1" = --trace ]; then
        [ $# -ge 2 ] || fail "--trace needs a file"
        trace=(--trace "$(from_caller "$2")")
        shift 2
      else
        positional+=("$1")
        shift
      fi
    done
    set -- "${positional[@]}"
    [ $# -le 2 ] || fail "$command takes at most an APP and a PLACEMENT; got: $*"
    build_host
    app="${1:-}"
    if [ -z "$app" ]; then
      # awk reads the whole list, so the host never writes into a closed pipe.
      if [ -n "$package" ]; then app="$("$host" --list | awk 'NR == 1 { print $1 }')"; else app=two-counters; fi
      [ -n "$app" ] || fail "the product \"$product\" lists no apps"
    fi
    options=()
    if [ $# -ge 2 ]; then
      [ "$2" = none ] || options+=(--placement "$(from_caller "$2")")
    elif [ -f "$placements/$app.placement" ]; then
      options+=(--placement "$placements/$app.placement")
    fi
    [ "$command" = hold ] && options+=(--hold)
    exec "$host" --app "$app" "${options[@]}" "${trace[@]}"
    ;;
  list)
    [ $# -eq 0 ] || fail "list takes no arguments; got: $*"
    build_host
    echo "apps:"
    "$host" --list | sed 's/^/  /'
    echo "placements:"
    for file in "$placements"/*.placement; do
      [ -f "$file" ] || continue
      echo "  ${file#"$root/"}: $(grep -v '^#' "$file" | sed 's/#.*//' | xargs)"
    done
    ;;
  boundaries)
    [ $# -eq 1 ] || fail "boundaries takes one APP (\"./compose.sh list\" lists them)"
    build_host
    exec "$host" --boundaries "$1"
    ;;
  test)
    # A filter or other options apply to this package's tests only.
    [ $# -gt 0 ] && exec swift test "$@"
    swift test
    for sample in "${samples[@]}"; do
      # As an outside consumer: a module imported without being a declared dependency fails.
      swift test --package-path "$sample" --explicit-target-dependency-import-check error
    done
    ;;
  bench)
    for built in bulkhead-benchmark child-worker; do swift build -c release --product "$built" >&2; done
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
