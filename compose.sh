#!/usr/bin/env bash
# The front door to Bulkhead: build and run compositions, run the tests and the benchmark.
#
#   ./compose.sh run [APP] [PLACEMENT]  build (release) and run an app with its boundaries placed
#                                       by PLACEMENT (default: placements/APP.placement, if any;
#                                       "none" runs every boundary in the host process)
#   ./compose.sh hold [APP] [PLACEMENT] the same, then stay up showing effects until Ctrl-C
#                                       (run and hold take --record FILE: write the recording,
#                                       and --trace FILE: write a trace for ui.perfetto.dev or
#                                       chrome://tracing; either anywhere among the arguments)
#   ./compose.sh replay FILE [PLACEMENT] run a recording again (default placement: none, all
#                                       in the host) and report the first step that differs
#   ./compose.sh list                   list the apps and the placement files
#   ./compose.sh boundaries APP         list the boundaries of APP that a placement can name
#   ./compose.sh study APP [REPORT]     run APP's script with each boundary in the host, in a worker
#                                       (under the limits placements/APP.placement gives it),
#                                       and killed and stalled there; print a table and write an
#                                       HTML report (default: APP-study.html here)
#   ./compose.sh test                   run the whole test suite (this package and Samples/)
#   ./compose.sh bench                  run the benchmark (release build): the date and load of
#                                       the run, then its figures as Markdown tables
#   ./compose.sh bench --write PAGE     the same, then put what it printed in PAGE between its
#                                       markers (docs/benchmarks.md shows them), if the run succeeded
#
# A composition you can reach from other terminals, one per app:
#   ./compose.sh up APP [PLACEMENT]     start it detached; returns once it is up
#   ./compose.sh ps APP                 its processes: pid, state, uptime, restarts, RSS, CPU
#   ./compose.sh top APP                the same, live, with actions and bytes per second
#   ./compose.sh logs APP [BOUNDARY] [-f]  its workers' output and events, by boundary
#   ./compose.sh kill|stop|cont APP BOUNDARY [INDEX]  SIGKILL/SIGSTOP/SIGCONT a worker
#   ./compose.sh slow APP BOUNDARY MS   hold every reply of BOUNDARY for MS (0: off)
#   ./compose.sh send APP 'ACTION'      send an action to its root store, written as run prints
#                                       it or as JSON, and print the state after it
#   ./compose.sh send APP --file FILE   the same for each line of FILE
#   ./compose.sh state APP [BOUNDARY] [--json]  its root state, or BOUNDARY's, as run prints it
#   ./compose.sh down APP               stop it: workers, sockets and run file go
#
# run, hold, replay, list, boundaries, study and up take --package PATH --product NAME first, to
# use the apps of another package's executable (one whose main calls HostCommand.main) instead of the
# built-in examples: ./compose.sh run --package Samples/Guestbook --product guestbook
# BULKHEAD_HOST=PATH runs that host executable instead of building one (the tests do), and
# BULKHEAD_BENCHMARK=PATH that benchmark executable.
set -euo pipefail
caller="$PWD"
cd "$(dirname "$0")"
root="$PWD"

usage() {
  sed -n '4,42p' "$0" | sed 's/^# \{0,1\}//'
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
  if [ -n "${BULKHEAD_HOST:-}" ]; then
    host="$BULKHEAD_HOST"
    placements="${package:-$root}/placements"
  elif [ -n "$package" ]; then
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

# Sets $options to the --placement of APP: PLACEMENT if given ("none": every boundary in the
# host), else $placements/APP.placement if there is one.
placement_options() {
  options=()
  if [ $# -ge 2 ]; then
    [ "$2" = none ] || options+=(--placement "$(from_caller "$2")")
  elif [ -f "$placements/$1.placement" ]; then
    options+=(--placement "$placements/$1.placement")
  fi
}

# The benchmark ($benchmark), after a line saying when it ran and how busy the machine was: the
# figures are only comparable within one run, and a busy machine skews even those.
run_benchmark() {
  echo "The run of $(date -u '+%Y-%m-%d %H:%M') UTC, load average $(cut -d ' ' -f 1 /proc/loadavg) on $(nproc) cores as it began."
  "$benchmark"
}

# The generated region of PAGE: the line numbers of its start marker (a line that begins with
# "<!-- generated by ./compose.sh bench") and its end marker ("<!-- end generated -->"), one of each,
# in that order; anything else fails, naming the page.
generated_region() {
  [ -f "$1" ] || fail "no page at $1 to write the figures into"
  local starts ends
  starts="$(grep -n '^<!-- generated by ./compose.sh bench' "$1" | cut -d : -f 1 | xargs || true)"
  ends="$(grep -n '^<!-- end generated -->$' "$1" | cut -d : -f 1 | xargs || true)"
  [ -n "$starts" ] && [ -n "$ends" ] ||
    fail "$1 has no generated region to write into: it needs a line \"<!-- generated by ./compose.sh bench --write PAGE: do not edit -->\" and, below it, a line \"<!-- end generated -->\""
  [ "$starts" = "${starts%% *}" ] && [ "$ends" = "${ends%% *}" ] ||
    fail "$1 has more than one generated region (start markers on lines $starts, end markers on lines $ends)"
  [ "$starts" -lt "$ends" ] || fail "$1: its end marker (line $ends) comes before its start marker (line $starts)"
  echo "$starts $ends"
}

# Replaces the lines between PAGE's markers with the text in FIGURES, a blank line either side;
# the rest of the page, the markers included, stays as it was. The new page is $written until
# it is renamed over PAGE.
write_generated() {
  local region start end
  region="$(generated_region "$1")"
  start="${region% *}"
  end="${region#* }"
  written="$(mktemp "$(dirname "$1")/.bench-XXXXXX")"
  {
    head -n "$start" "$1"
    echo
    cat "$2"
    echo
    tail -n "+$end" "$1"
  } >"$written" || fail "could not write $1"
  # Renamed over the page only once whole, so an interrupted write leaves the page as it was.
  chmod --reference="$1" "$written"
  mv "$written" "$1"
}

case "$command" in
  run | hold)
    # --record FILE and --trace FILE may come anywhere among APP and PLACEMENT.
    files=()
    positional=()
    while [ $# -gt 0 ]; do
      case "$1" in
        --record | --trace)
          [ $# -ge 2 ] || fail "$1 needs a file"
          case " ${files[*]-} " in *" $1 "*) fail "$1 given twice" ;; esac
          files+=("$1" "$(from_caller "$2")")
          shift 2
          ;;
        *)
          positional+=("$1")
          shift
          ;;
      esac
    done
    set -- "${positional[@]+"${positional[@]}"}"
    [ $# -le 2 ] || fail "$command takes at most an APP and a PLACEMENT; got: $*"
    build_host
    app="${1:-}"
    if [ -z "$app" ]; then
      # awk reads the whole list, so the host never writes into a closed pipe.
      if [ -n "$package" ]; then app="$("$host" --list | awk 'NR == 1 { print $1 }')"; else app=two-counters; fi
      [ -n "$app" ] || fail "the product \"$product\" lists no apps"
    fi
    placement_options "$app" "${@:2}"
    [ "$command" = hold ] && options+=(--hold)
    exec "$host" --app "$app" "${options[@]}" "${files[@]+"${files[@]}"}"
    ;;
  replay)
    [ $# -ge 1 ] && [ $# -le 2 ] || fail "replay takes a recording FILE and at most a PLACEMENT"
    build_host
    options=(--replay "$(from_caller "$1")")
    if [ $# -eq 2 ] && [ "$2" != none ]; then options+=(--placement "$(from_caller "$2")"); fi
    exec "$host" "${options[@]}"
    ;;
  up)
    [ $# -ge 1 ] && [ $# -le 2 ] || fail "up takes an APP and a PLACEMENT (optional); got: ${*:-nothing}"
    build_host
    placement_options "$@"
    exec "$host" --control "$1" up "${options[@]}"
    ;;
  ps | top | logs | kill | stop | cont | slow | down | send | state)
    [ $# -ge 1 ] || fail "$command takes an APP first (\"./compose.sh help\" shows what follows)"
    # A file of actions is named from where compose.sh was run.
    if [ "$command" = send ] && [ "${2:-}" = --file ] && [ $# -ge 3 ]; then
      set -- "$1" --file "$(from_caller "$3")" "${@:4}"
    fi
    # Any host reaches any composition; the one built already will do.
    if [ -z "${BULKHEAD_HOST:-}" ] && [ -z "$package" ] && [ -x "$root/.build/release/parent-host" ]; then
      host="$root/.build/release/parent-host"
    else
      build_host
    fi
    exec "$host" --control "$1" "$command" "${@:2}"
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
  study)
    [ $# -ge 1 ] && [ $# -le 2 ] || fail "study takes an APP and, optionally, where to write the report"
    build_host
    # The limits of APP's placement file, if it has one, hold the boundaries it studies.
    placement_options "$1"
    exec "$host" --study "$1" --report "$(from_caller "${2:-$1-study.html}")" "${options[@]}"
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
    page=""
    if [ $# -gt 0 ]; then
      [ "$1" = --write ] && [ $# -eq 2 ] || fail "bench takes nothing or --write PAGE; got: $*"
      page="$(from_caller "$2")"
      # Before minutes of measuring, not after.
      generated_region "$page" >/dev/null
    fi
    if [ -n "${BULKHEAD_BENCHMARK:-}" ]; then
      benchmark="$(from_caller "$BULKHEAD_BENCHMARK")"
    else
      for built in bulkhead-benchmark child-worker; do swift build -c release --product "$built" >&2; done
      benchmark=.build/release/bulkhead-benchmark
    fi
    if [ -z "$page" ]; then
      run_benchmark
    else
      figures="$(mktemp)"
      written=""
      trap 'rm -f "$figures" ${written:+"$written"}' EXIT
      # pipefail: a run that fails, even halfway, leaves the page as it was.
      run_benchmark | tee "$figures" || fail "the benchmark failed (status $?); ${page#"$root/"} is left as it was"
      write_generated "$page" "$figures"
      echo "compose.sh: wrote the figures of this run into ${page#"$root/"}" >&2
    fi
    ;;
  -h | --help | help)
    usage
    ;;
  *)
    echo "compose.sh: unknown command \"$command\"" >&2
    usage
    ;;
esac
