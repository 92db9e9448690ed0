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
#   ./compose.sh study APP [REPORT] [--fault-at N] [--live]
#                                       run APP's script with each boundary in the host, in a worker
#                                       (under the limits placements/APP.placement gives it),
#                                       and killed and stalled there at action N of the script
#                                       (default: halfway); print a table and write an HTML
#                                       report (default: APP-study.html here); --live moves the
#                                       boundaries in one running composition instead of
#                                       starting one per placement
#   ./compose.sh test                   run the whole test suite (this package and Samples/)
#   ./compose.sh bench                  run the benchmark (release build): the date and load of
#                                       the run, then its figures as Markdown tables
#   ./compose.sh bench --write PAGE     the same, then put what it printed in PAGE between its
#                                       markers (docs/benchmarks.md shows them), if the run succeeded
#
# A composition you can reach from other terminals, one per app:
#   ./compose.sh up APP [PLACEMENT]     start it detached; returns once it is up
#   ./compose.sh ps [APP]               its processes: pid, state, uptime, restarts, RSS, CPU;
#                                       without APP, every composition that is up, one a line
#   ./compose.sh top [APP]              the same, live, with actions and bytes per second (one
#                                       plain snapshot when its output is not a terminal)
#   ./compose.sh logs APP [BOUNDARY] [-f]  its workers' output and events, by boundary
#   ./compose.sh kill|stop|cont APP BOUNDARY [INDEX]  SIGKILL/SIGSTOP/SIGCONT a worker
#   ./compose.sh slow APP BOUNDARY MS   hold every reply of BOUNDARY for MS (0: off)
#   ./compose.sh send APP 'ACTION'      send an action to its root store, written as run prints
#                                       it or as JSON, and print the state after it
#   ./compose.sh send APP --file FILE   the same for each line of FILE
#                                       (--repeat N after either: N times over; shows the last)
#   ./compose.sh state APP [BOUNDARY] [--json]  its root state, or BOUNDARY's, as run prints it
#   ./compose.sh move APP BOUNDARY host|worker  move a placed BOUNDARY while it runs; says how long it took
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

# The comment at the top of this file, from its second paragraph to the code.
usage() {
  sed -n '4,/^set -euo pipefail/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
}

# The commands this script takes, for "did you mean".
commands=(run hold replay list boundaries study test bench up ps top logs kill stop cont slow move send state down help)

# The one of the words after $1 fewest edits from $1 (insertions, deletions, substitutions and
# swaps of two neighbours), if it is close enough to be a slip: at most a third of its letters,
# and at least one. ClosestName does the same in the host.
closest() {
  local typed="$1"
  shift
  printf '%s\n' "$@" | awk -v typed="$typed" '
    function distance(a, b,    i, j, n, m, d, cost, best) {
      n = length(a); m = length(b)
      for (i = 0; i <= n; i++) d[i, 0] = i
      for (j = 0; j <= m; j++) d[0, j] = j
      for (i = 1; i <= n; i++) {
        for (j = 1; j <= m; j++) {
          cost = substr(a, i, 1) == substr(b, j, 1) ? 0 : 1
          best = d[i - 1, j] + 1
          if (d[i, j - 1] + 1 < best) best = d[i, j - 1] + 1
          if (d[i - 1, j - 1] + cost < best) best = d[i - 1, j - 1] + cost
          if (i > 1 && j > 1 && substr(a, i, 1) == substr(b, j - 1, 1) && substr(a, i - 1, 1) == substr(b, j, 1) && d[i - 2, j - 2] + 1 < best) best = d[i - 2, j - 2] + 1
          d[i, j] = best
        }
      }
      return d[n, m]
    }
    { d = distance(typed, $0); if (winner == "" || d < least) { least = d; winner = $0 } }
    END { limit = int(length(typed) / 3); if (limit < 1) limit = 1; if (winner != "" && least <= limit) print winner }'
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

# The toolchain: `swift` on PATH, or the one installed at /opt/swift.
if ! command -v swift >/dev/null; then
  [ -x /opt/swift/usr/bin/swift ] || fail "no swift on PATH: install the Swift 6.3 toolchain, or add its usr/bin to PATH"
  export PATH="/opt/swift/usr/bin:$PATH"
fi

# The packages whose tests `test` runs besides this one's.
samples=(Samples/Guestbook)

command="${1:-run}"
[ $# -gt 0 ] && shift
# The host names this command in its messages, not its own flags.
export BULKHEAD_COMMAND="compose.sh $command"

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

# A hash of what a release build of the package at $1 is made from: its manifest and sources,
# this repository's (which a package of apps depends on), and the compiler's path.
source_hash() {
  local directory
  {
    command -v swift
    for directory in "$1" "$root"; do
      (cd "$directory" && find Package.swift Package.resolved Sources -type f 2>/dev/null | LC_ALL=C sort | xargs -r sha1sum)
    done
  } | sha1sum | cut -d ' ' -f 1
}

# Builds the products named after $1 (a package's path) in release, unless they were built from
# these very sources: the hash of the last build's is kept in a stamp beside them, because
# SwiftPM may rebuild everything when only the terminal's environment changed. Prints the
# directory of the products.
build_release() {
  local directory="$1" hash stamp built bin
  shift
  hash="$(source_hash "$directory")"
  stamp="$directory/.build/compose.sh-release.stamp"
  if [ -f "$stamp" ] && [ "$(head -n 1 "$stamp")" = "$hash" ]; then
    bin="$(sed -n 2p "$stamp")"
    for built; do [ -x "$bin/$built" ] || bin=""; done
    [ -n "$bin" ] && echo "$bin" && return 0
  fi
  for built; do swift build -c release --package-path "$directory" --product "$built" >&2 || return 1; done
  bin="$(swift build -c release --package-path "$directory" --show-bin-path)"
  printf '%s\n%s\n' "$hash" "$bin" >"$stamp"
  echo "$bin"
}

# Builds the host (and the built-in worker) in release and sets $host and $placements.
build_host() {
  local bin
  if [ -n "${BULKHEAD_HOST:-}" ]; then
    host="$BULKHEAD_HOST"
    placements="${package:-$root}/placements"
  elif [ -n "$package" ]; then
    bin="$(build_release "$package" "$product")" ||
      fail "could not build the product \"$product\" of $package (SwiftPM's message is above)"
    host="$bin/$product"
    placements="$package/placements"
    # A host answers this flag; any other executable would take it as something else.
    [ "$(timeout 10 "$host" --bulkhead-host 2>/dev/null || true)" = "bulkhead host" ] ||
      fail "the product \"$product\" is not a Bulkhead host: its main must call HostCommand.main(apps:)"
  else
    bin="$(build_release "$root" parent-host child-worker)" || fail "could not build the host (SwiftPM's message is above)"
    host="$bin/parent-host"
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
  ps | top | logs | kill | stop | cont | slow | move | down | send | state)
    # ps and top without an app look at every composition that is up.
    if [ $# -eq 0 ] && { [ "$command" = ps ] || [ "$command" = top ]; }; then set -- --every; fi
    [ $# -ge 1 ] || fail "$command takes an APP first (\"./compose.sh help\" shows what follows)"
    # A file of actions is named from where compose.sh was run.
    if [ "$command" = send ]; then
      arguments=()
      while [ $# -gt 0 ]; do
        if [ "$1" = --file ] && [ $# -ge 2 ]; then arguments+=(--file "$(from_caller "$2")"); shift 2
        else arguments+=("$1"); shift; fi
      done
      set -- "${arguments[@]}"
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
    study_options=()
    study_arguments=()
    while [ $# -gt 0 ]; do
      case "$1" in
        --fault-at) [ $# -ge 2 ] || fail "--fault-at takes the number of an action of the script"
          study_options+=(--fault-at "$2"); shift 2 ;;
        --live) study_options+=(--live); shift ;;
        *) study_arguments+=("$1"); shift ;;
      esac
    done
    set -- "${study_arguments[@]}"
    [ $# -ge 1 ] && [ $# -le 2 ] || fail "study takes an APP and, optionally, where to write the report (and --fault-at N)"
    build_host
    # The limits of APP's placement file, if it has one, hold the boundaries it studies.
    placement_options "$1"
    exec "$host" --study "$1" --report "$(from_caller "${2:-$1-study.html}")" "${options[@]}" "${study_options[@]}"
    ;;
  test)
    # The tests run the host as a person would from its own command line, which names itself.
    unset BULKHEAD_COMMAND
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
    guess="$(closest "$command" "${commands[@]}")"
    fail "unknown command \"$command\"${guess:+ (did you mean \"$guess\"?)}; \"./compose.sh help\" lists the commands"
    ;;
esac
