#!/usr/bin/env bash
# Build transgrad._C with sanitizers and run the tests under them.
#
#   tools/sanitize.sh thread    ThreadSanitizer: the threading tests (tests/compiled/test_threads.py,
#                               tests/compiled/test_stress.py, test_small_alloc.py, the engine's
#                               thread tests; known false positives: tools/tsan.supp)
#   tools/sanitize.sh address   AddressSanitizer + UndefinedBehaviorSanitizer: the whole suite
#                               in one pytest process
#   tools/sanitize.sh address-dirs [DIR...]
#                               the same, one pytest process per test directory (default: every
#                               tests/*/), each with its own log $TG_SAN_DIR/logs/address-NAME.log;
#                               a directory with a report does not stop the next one. A summary
#                               table (directory, seconds, result) ends the run; it fails if any
#                               directory failed.
#   tools/sanitize.sh build address|thread
#                               only build (or bring up to date) the sanitized package
#   tools/sanitize.sh all       thread, then address (the default)
#
# Extra arguments go to pytest (e.g. `tools/sanitize.sh thread -k shared`,
# `tools/sanitize.sh address tests/engine -x`; for address-dirs they go to every directory's run).
# Environment:
#   TG_SAN_DIR (default /tmp/tg-sanitize): where the builds, the assembled packages and the logs go.
#   TG_SAN_REUSE=1: use the sanitized build already in TG_SAN_DIR as it is (no cmake, no ninja);
#     only the Python sources are copied again. For a second run while the machine is busy; after
#     a C++ or formula change leave it unset (ninja then rebuilds only what changed).
#   CMAKE_CXX_COMPILER_LAUNCHER (e.g. ccache) is passed on to cmake.
#
# The Python interpreter is not instrumented, so the sanitizer runtime is preloaded
# (LD_PRELOAD). Leak checking is off (the interpreter keeps objects alive at exit on purpose).
# A failed huge allocation returns NULL as without ASan (allocator_may_return_null), so the tests
# of sizes too big to allocate see the MemoryError users see instead of ASan's abort.
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

# build NAME SANITIZERS: configure, compile and assemble a package dir $out/NAME/pkg.
build() {
  local name=$1 sanitize=$2 b=$out/$1/build p=$out/$1/pkg
  if [[ ${TG_SAN_REUSE:-} == 1 && -f $b/libtransgrad.so ]]; then
    echo "reusing the $name build in $b (TG_SAN_REUSE=1)" >&2
  else
    cmake -S "$root" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF -DPython_EXECUTABLE="$python" -Dpybind11_DIR="$("$python" -m pybind11 --cmakedir)" \
      ${CMAKE_CXX_COMPILER_LAUNCHER:+-DCMAKE_CXX_COMPILER_LAUNCHER="$CMAKE_CXX_COMPILER_LAUNCHER"} \
      -DTG_SANITIZE="$sanitize" >&2
    ninja -C "$b" >&2
  fi
  rm -rf "$p" && mkdir -p "$p"
  cp -r "$root/python/transgrad" "$p/transgrad"
  cp "$b"/_C*.so "$b"/libtransgrad.so "$p/transgrad/"
  cp "$b"/generated/_C.pyi "$b"/generated/_formula_facts.py "$p/transgrad/" 2>/dev/null || true
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
  (cd "$root" && PYTHONPATH="${pre_path:+$pre_path:}$pkg" TG_REQUIRE_COMPILED=1 LD_PRELOAD="$preload" \
    setarch "$(uname -m)" -R "$python" -m pytest -q --capture=no -p no:cacheprovider "$@")
}

thread() {
  local pkg
  pkg=$(build tsan thread | tail -n 1)
  echo "== ThreadSanitizer: threading tests"
  # torch is not instrumented: with it loaded (the tests that also run each case on torch) TSan
  # reports torch's own threads' locks and frees. Those comparisons are the normal suite's job;
  # here `import torch` fails, so they skip.
  local no_torch=$out/no-torch
  mkdir -p "$no_torch/torch"
  echo 'raise ImportError("torch is hidden under ThreadSanitizer (tools/sanitize.sh)")' \
    >"$no_torch/torch/__init__.py"
  # The pool's workers and OpenBLAS threads are created by the instrumented library or are
  # outside it; report only races, in our code, and stop at the first. Beside the threading
  # tests: exit with daemon threads computing (Note [Threads at exit]), and re-entrant
  # backward moved to a fresh thread, with final callbacks (Note [Deep re-entrant backward]).
  TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 report_signal_unsafe=0 suppressions=$root/tools/tsan.supp ${TSAN_OPTIONS:-}" \
    TG_STRESS_SECONDS=${TG_STRESS_SECONDS:-3} pre_path=$no_torch \
    run_pytest "$pkg" "$(runtime libtsan.so)" \
    tests/compiled/test_threads.py tests/compiled/test_stress.py tests/compiled/test_small_alloc.py \
    tests/engine/test_engine.py tests/engine/test_exit_with_daemon_threads.py \
    tests/engine/test_torch_autograd_behaviours.py \
    -k "thread or stress or alloc or exit or reentrant or callback" "$@"
}

run_asan() {  # PKG pytest-args...
  local pkg=$1
  shift
  # TG_SANITIZER: the few tests that need an allocation to fail as in production skip (ASan's
  # operator new aborts where the real one throws std::bad_alloc)
  TG_SANITIZER=address ASAN_OPTIONS="detect_leaks=0 halt_on_error=1 abort_on_error=0 exitcode=66 allocator_may_return_null=1 ${ASAN_OPTIONS:-}" \
    UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1 exitcode=66 ${UBSAN_OPTIONS:-}" \
    run_pytest "$pkg" "$(runtime libasan.so):$(runtime libubsan.so)" "$@"
}

address() {
  local pkg
  pkg=$(build asan address,undefined | tail -n 1)
  echo "== AddressSanitizer + UndefinedBehaviorSanitizer: the whole suite"
  run_asan "$pkg" "$@"
}

# address-dirs [DIR...] [-- pytest-args...]: one run per directory, a log each, keep going.
address_dirs() {
  local pkg dirs=() args=() d name t0 secs rc failed=0 summary=""
  while [[ $# -gt 0 ]]; do
    if [[ $1 == -- ]]; then shift; args=("$@"); break; fi
    if [[ $1 == -* ]]; then args=("$@"); break; fi
    dirs+=("$1"); shift
  done
  if [[ ${#dirs[@]} -eq 0 ]]; then
    for d in "$root"/tests/*/; do dirs+=("tests/$(basename "$d")"); done
  fi
  pkg=$(build asan address,undefined | tail -n 1)
  mkdir -p "$out/logs"
  for d in "${dirs[@]}"; do
    name=$(basename "$d")
    echo "== ASan+UBSan: $d (log: $out/logs/address-$name.log)"
    t0=$(date +%s)
    rc=0
    run_asan "$pkg" "$d" ${args[@]+"${args[@]}"} >"$out/logs/address-$name.log" 2>&1 || rc=$?
    secs=$(($(date +%s) - t0))
    local verdict="clean"
    if [[ $rc -ne 0 ]]; then
      failed=1
      if grep -q "ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer" "$out/logs/address-$name.log"; then
        verdict="SANITIZER REPORT (exit $rc)"
      else
        verdict="tests failed (exit $rc)"
      fi
    fi
    echo "   $(tail -n 1 "$out/logs/address-$name.log")"
    summary+=$(printf '| %s | %d | %s |\n' "$d" "$secs" "$verdict")$'\n'
  done
  echo "| directory | seconds | result |"
  echo "|---|---|---|"
  printf '%s' "$summary" | tee "$out/logs/address-summary.md"
  return $failed
}

case $what in
  thread) thread "$@" ;;
  address) address "$@" ;;
  address-dirs) address_dirs "$@" ;;
  build)
    case ${1:-} in
      address) build asan address,undefined ;;
      thread) build tsan thread ;;
      *) echo "usage: $0 build address|thread" >&2; exit 2 ;;
    esac ;;
  all) thread "$@" && address "$@" ;;
  *) echo "usage: $0 [thread|address|address-dirs|build|all] [pytest args...]" >&2; exit 2 ;;
esac
