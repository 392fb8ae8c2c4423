#!/usr/bin/env bash
# Seeds the corpora from tests/traces and runs every fuzz target for SECONDS each.
#
#   fuzz/run-all.sh 60            # from any directory; installs cargo-fuzz when missing
#   ASAN=1 fuzz/run-all.sh 600    # with AddressSanitizer (nightly features via RUSTC_BOOTSTRAP)
#
# One libFuzzer process per target, one after the other (nice'd, -jobs unset), so it
# shares a small machine. Exits non-zero on the first crash; the crashing input is left in
# fuzz/artifacts/TARGET/ (reproduce with `cargo fuzz run -s none TARGET ARTIFACT`).
set -euo pipefail

SECONDS_PER_TARGET="${1:-60}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE/.."

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "run-all: installing cargo-fuzz" >&2
    cargo install --locked cargo-fuzz
fi

python3 "$HERE/seed.py"

if [[ "${ASAN:-0}" == "1" ]]; then
    FUZZ=(env RUSTC_BOOTSTRAP=1 cargo fuzz run)
else
    # The stable toolchain cannot build sanitizers: plain libFuzzer coverage only.
    FUZZ=(cargo fuzz run -s none)
fi

TARGETS=(raw_messages operations trace_lines sidecar_lines)
for target in "${TARGETS[@]}"; do
    echo "run-all: $target for ${SECONDS_PER_TARGET}s" >&2
    nice -n 10 "${FUZZ[@]}" "$target" -- \
        -max_total_time="$SECONDS_PER_TARGET" -max_len=16384 -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1
done
echo "run-all: no crash in $((${#TARGETS[@]} * SECONDS_PER_TARGET))s of fuzzing" >&2
