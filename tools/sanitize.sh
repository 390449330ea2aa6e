#!/usr/bin/env bash
# Build transgrad._C with sanitizers and run the tests under them.
#
#   tools/sanitize.sh thread    ThreadSanitizer: the threading tests (tests/compiled/test_threads.py,
#                               tests/compiled/test_stress.py, test_small_alloc.py, the engine's
#                               thread tests; known false positives: tools/tsan.supp)
#   tools/sanitize.sh address   AddressSanitizer + UndefinedBehaviorSanitizer: the whole suite
#   tools/sanitize.sh all       both (the default)
#
# Extra arguments go to pytest (e.g. `tools/sanitize.sh thread -k shared`). Environment:
# TG_SAN_DIR (default /tmp/tg-sanitize): where the builds and the assembled packages go.
#
# The Python interpreter is not instrumented, so the sanitizer runtime is preloaded
# (LD_PRELOAD). Leak checking is off (the interpreter keeps objects alive at exit on purpose).
# The programs run under `setarch -R` (no address randomisation): TSan refuses (or crashes at
# startup) when the kernel's mmap randomisation uses more bits than its memory layout allows.
# Any sanitizer report fails the run (halt_on_error / exitcode), so a clean exit means clean.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${TG_SAN_DIR:-/tmp/tg-sanitize}
what=${1:-all}
[[ $# -gt 0 ]] && shift
# The real interpreter, not a wrapper script (pyenv shims crash with a sanitizer preloaded).
python=$("${PYTHON:-python}" -c "import sys; print(sys.executable)")
pybind11_dir=$("$python" -m pybind11 --cmakedir)

# build NAME SANITIZERS: configure, compile and assemble a package dir $out/NAME/pkg.
build() {
  local name=$1 sanitize=$2 b=$out/$1/build p=$out/$1/pkg
  cmake -S "$root" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF -Dpybind11_DIR="$pybind11_dir" \
    -DTG_SANITIZE="$sanitize" >&2
  ninja -C "$b" >&2
  rm -rf "$p" && mkdir -p "$p"
  cp -r "$root/python/transgrad" "$p/transgrad"
  cp "$b"/_C*.so "$b"/libtransgrad.so "$p/transgrad/"
  cp -r "$root/translator" "$p/transgrad/translator"
  cp -r "$root/formulas" "$p/transgrad/formulas"
  echo "$p"
}

runtime() { "${CXX:-g++}" -print-file-name="$1"; }

run_pytest() {  # PKG PRELOAD pytest-args...
  # --capture=no: pytest captures each test's stderr, and a sanitizer that stops the process
  # mid-test would take its report down with the capture (exit code 66, no message).
  local pkg=$1 preload=$2
  shift 2
  (cd "$root" && PYTHONPATH="$pkg" TG_REQUIRE_COMPILED=1 LD_PRELOAD="$preload" \
    setarch "$(uname -m)" -R "$python" -m pytest -q --capture=no -p no:cacheprovider "$@")
}

thread() {
  local pkg
  pkg=$(build tsan thread | tail -n 1)
  echo "== ThreadSanitizer: threading tests"
  # The pool's workers and OpenBLAS threads are created by the instrumented library or are
  # outside it; report only races, in our code, and stop at the first.
  TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 report_signal_unsafe=0 suppressions=$root/tools/tsan.supp ${TSAN_OPTIONS:-}" \
    TG_STRESS_SECONDS=${TG_STRESS_SECONDS:-3} \
    run_pytest "$pkg" "$(runtime libtsan.so)" \
    tests/compiled/test_threads.py tests/compiled/test_stress.py tests/compiled/test_small_alloc.py \
    tests/engine/test_engine.py -k "thread or stress or alloc" "$@"
}

address() {
  local pkg
  pkg=$(build asan address,undefined | tail -n 1)
  echo "== AddressSanitizer + UndefinedBehaviorSanitizer: the whole suite"
  ASAN_OPTIONS="detect_leaks=0 halt_on_error=1 abort_on_error=0 exitcode=66 ${ASAN_OPTIONS:-}" \
    UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1 exitcode=66 ${UBSAN_OPTIONS:-}" \
    run_pytest "$pkg" "$(runtime libasan.so):$(runtime libubsan.so)" "$@"
}

case $what in
  thread) thread "$@" ;;
  address) address "$@" ;;
  all) thread "$@" && address "$@" ;;
  *) echo "usage: $0 [thread|address|all] [pytest args...]" >&2; exit 2 ;;
esac
