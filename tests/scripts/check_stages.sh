#!/usr/bin/env bash
# Checks scripts/stages.sh, the stage table and time guard of scripts/test.sh: a stage's time and
# outcome (a failing command's exit code kept), the ctest entries at or above the threshold taken from
# real ctest output lines (passed, failed, timed out), sorted, the others left out; the guard passes
# within its limit and, past it, fails naming the slowest stages and entries.
#   tests/scripts/check_stages.sh SOURCE_DIR
set -uo pipefail
source "$1/scripts/stages.sh"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
cat > "$out" <<'CTEST'
        Start  43: conformance_node
 17/177 Test  #12: LargeModels ...............................................   Passed  234.03 sec
 18/177 Test  #19: export_torch_models .......................................   Passed   20.21 sec
171/177 Test  #43: conformance_node ..........................................   Passed  161.58 sec
 60/177 Test  #61: compare_with_onnxruntime ..................................***Failed   75.32 sec
 61/177 Test  #62: slow_one ..................................................***Timeout 1200.01 sec
CTEST
fail() { echo "check_stages: $*"; exit 1; }
stage "quick" true || fail "a passing stage failed"
stage "broken" sh -c 'exit 3'
[ $? = 3 ] || fail "stage did not return its command's exit code"
DCW_STAGE_ENTRY_SECONDS=60 stage_entries "$out" "main suite"
table=$(stage_table)
echo "$table"
grep -qE '^  quick +0:0[0-9]  ok$' <<<"$table" || fail "no row for the passing stage"
grep -qE '^  broken +0:0[0-9]  FAILED \(exit 3\)$' <<<"$table" || fail "no row for the failing stage"
grep -q 'export_torch_models' <<<"$table" && fail "an entry under the threshold is listed"
order=$(grep -oE 'main suite: [a-z_A-Z]+' <<<"$table" | tr '\n' ' ')
[ "$order" = "main suite: slow_one main suite: LargeModels main suite: conformance_node main suite: compare_with_onnxruntime " ] ||
  fail "entries not listed slowest first: $order"
grep -qE 'main suite: LargeModels +3:54$' <<<"$table" || fail "LargeModels is not 3:54"
grep -qE '^  total +0:0[0-9]$' <<<"$table" || fail "no total"
stages_started=$((SECONDS - 90)) # as if the run had started a minute and a half ago
stage_guard 2 || fail "the guard failed within its limit"
guard=$(stage_guard 1)
[ $? = 1 ] || fail "the guard passed past its limit"
echo "$guard"
grep -q 'this run took 1:3[0-9], past its limit of 1 minutes' <<<"$guard" || fail "the guard does not say what its limit is"
[ "$(sed -n 2p <<<"$guard" | grep -oE 'slow_one')" = slow_one ] || fail "the guard does not name the slowest first"
echo "stages: ok"
