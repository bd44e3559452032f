#!/usr/bin/env bash
# compare-results.sh: run every shipped scenario (scenarios/*.toml) and benchmark
# (benches/*.toml) with two rocesim binaries and diff all their result files.
#
# Usage: scripts/compare-results.sh [OPTIONS] BIN_A BIN_B [OUTDIR]
#
#   BIN_A, BIN_B   the two rocesim executables (e.g. /work/bin/rocesim-base target/release/rocesim)
#   OUTDIR         where the results go: OUTDIR/a/<name>/, OUTDIR/b/<name>/ (default: a new
#                  temporary directory, kept so that the differences can be inspected)
#
# Options:
#   --set KEY=VALUE   passed to every run of both binaries (repeatable), e.g.
#                     --set sim.duration=1ms to shorten every scenario
#   --set-b KEY=VALUE passed to the runs of BIN_B only (repeatable), e.g. the same binary
#                     twice with --set-b sim.threads=2 (a run split across threads must give
#                     one thread's results); a run BIN_B refuses with exit code 2 while
#                     BIN_A ran is listed as "refused" (with its first error), not as a
#                     difference
#   --skip-slow       skip the slowest files (two-podsets, the S1 and S4 benchmarks)
#   --only REGEX      run only the files whose path matches REGEX (grep -E)
#   -h, --help        this text
#
# Timing-only output is ignored: the "wall_s", "events_per_s" and "peak_memory_kb" lines of
# summary.json, and the wall time and events/s of report.html's "events" row. The exit codes
# of the two runs are compared too. Prints one line per scenario:
#   identical   scenarios/incast.toml
#   DIFFERS     scenarios/incast.toml: flows.csv summary.json
# and exits 1 when anything differs (2 on a usage error), 0 otherwise. Run from the repository
# root (scenarios refer to each other by relative paths).
set -u

usage() {
    sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
}

SLOW_RE='scenarios/two-podsets\.toml|benches/s1(-[a-z]+)?\.toml|benches/s4\.toml'
sets=()
sets_b=()
skip_slow=0
only=''
pos=()
while [ $# -gt 0 ]; do
    case "$1" in
        --set) [ $# -ge 2 ] || { usage >&2; exit 2; }; sets+=(--set "$2"); shift 2 ;;
        --set=*) sets+=(--set "${1#--set=}"); shift ;;
        --set-b) [ $# -ge 2 ] || { usage >&2; exit 2; }; sets_b+=(--set "$2"); shift 2 ;;
        --skip-slow) skip_slow=1; shift ;;
        --only) [ $# -ge 2 ] || { usage >&2; exit 2; }; only="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        --) shift; pos+=("$@"); break ;;
        -*) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
        *) pos+=("$1"); shift ;;
    esac
done
if [ ${#pos[@]} -lt 2 ] || [ ${#pos[@]} -gt 3 ]; then
    usage >&2
    exit 2
fi
bin_a=$(realpath "${pos[0]}")
bin_b=$(realpath "${pos[1]}")
out=${pos[2]:-$(mktemp -d -t rocesim-compare.XXXXXX)}
for b in "$bin_a" "$bin_b"; do
    [ -x "$b" ] || { echo "not an executable: $b" >&2; exit 2; }
done
mkdir -p "$out/a" "$out/b" || exit 2

# Removes the timing-only parts of one result file (read on stdin).
normalize() {
    case "$1" in
        summary.json)
            grep -v -E '^ *"(wall_s|events_per_s|peak_memory_kb)":' ;;
        report.html)
            sed -E 's/ in [0-9.]+ s wall \([^)]*\)/ in WALL s wall (RATE)/g' ;;
        *) cat ;;
    esac
}

# Runs one file with one binary into DIR; writes DIR/.exit with the exit code.
run_one() {
    local bin=$1 file=$2 dir=$3
    shift 3
    rm -rf "$dir"
    mkdir -p "$dir"
    "$bin" run "$file" --quiet --out "$dir" ${sets[@]+"${sets[@]}"} "$@" \
        >"$dir/.stdout" 2>"$dir/.stderr"
    echo $? >"$dir/.exit"
}

# Lists the files of the two result directories that differ (after normalizing).
differing_files() {
    local da=$1 db=$2 f
    {
        (cd "$da" && find . -type f ! -name '.stdout' ! -name '.stderr')
        (cd "$db" && find . -type f ! -name '.stdout' ! -name '.stderr')
    } | sed 's|^\./||' | sort -u | while read -r f; do
        if [ ! -f "$da/$f" ] || [ ! -f "$db/$f" ]; then
            echo "$f(missing)"
        elif ! cmp -s <(normalize "$(basename "$f")" <"$da/$f") \
                      <(normalize "$(basename "$f")" <"$db/$f"); then
            if [ "$f" = .exit ]; then echo "exit-code"; else echo "$f"; fi
        fi
    done
}

status=0
count=0
refused=0
for file in scenarios/*.toml benches/*.toml; do
    [ -f "$file" ] || continue
    if [ -n "$only" ] && ! echo "$file" | grep -qE "$only"; then continue; fi
    if [ $skip_slow = 1 ] && echo "$file" | grep -qE "^($SLOW_RE)$"; then
        printf '%-10s  %s\n' skipped "$file"
        continue
    fi
    name=$(echo "${file%.toml}" | tr '/' '-')
    run_one "$bin_a" "$file" "$out/a/$name"
    run_one "$bin_b" "$file" "$out/b/$name" ${sets_b[@]+"${sets_b[@]}"}
    if [ ${#sets_b[@]} -gt 0 ] && [ "$(cat "$out/b/$name/.exit")" = 2 ] &&
        [ "$(cat "$out/a/$name/.exit")" != 2 ]; then
        why=$(grep -m 1 '^error: ' "$out/b/$name/.stderr" | sed 's/^error: [^:]*: //')
        printf '%-10s  %s: %s\n' refused "$file" "${why:0:150}"
        refused=$((refused + 1))
        continue
    fi
    diffs=$(differing_files "$out/a/$name" "$out/b/$name" | tr '\n' ' ')
    count=$((count + 1))
    if [ -z "$diffs" ]; then
        printf '%-10s  %s\n' identical "$file"
    else
        printf '%-10s  %s: %s\n' DIFFERS "$file" "${diffs% }"
        status=1
    fi
done
if [ $status = 0 ]; then
    echo "all $count identical, $refused refused by BIN_B (results in $out)"
else
    echo "some results differ (results in $out)"
fi
exit $status
