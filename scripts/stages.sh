# Wall times of a test run's stages, sourced by scripts/test.sh: `stage NAME COMMAND...` runs COMMAND and
# records its time and outcome; `stage_entries CTEST_OUTPUT LABEL` records the ctest entries of that run
# that took DCW_STAGE_ENTRY_SECONDS (60) or more; `stage_table` prints both as one table (the run's total
# last); `stage_guard MINUTES` fails, naming the slowest stages and entries, once the run has taken longer.
stages_started=$SECONDS
stage_rows=()   # "seconds<TAB>outcome<TAB>name" of each stage, in order
entry_rows=()   # "seconds<TAB>name" of each heavy ctest entry

stage() {
  local name=$1 t0=$SECONDS rc=0
  shift
  echo "== stage: $name"
  "$@" || rc=$?
  local outcome=ok
  [ "$rc" = 0 ] || outcome="FAILED (exit $rc)"
  stage_rows+=("$((SECONDS - t0))"$'\t'"$outcome"$'\t'"$name")
  return "$rc"
}

# ctest prints "  3/177 Test  #12: conformance_node ......   Passed  383.12 sec".
stage_entries() {
  local out=$1 label=$2 min=${DCW_STAGE_ENTRY_SECONDS:-60} line
  [ -f "$out" ] || return 0
  while IFS= read -r line; do
    entry_rows+=("$line")
  done < <(sed -nE 's/^ *[0-9]+\/[0-9]+ +Test +#[0-9]+: +([^ ]+) [. ]*[*A-Za-z ]+ +([0-9.]+) sec$/\2\t\1/p' "$out" |
             awk -F'\t' -v min="$min" -v label="$label" '$1 >= min {printf "%d\t%s: %s\n", $1 + 0.5, label, $2}' |
             sort -t$'\t' -k1,1nr)
}

stage_clock() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

stage_table() {
  local row secs rest
  echo
  echo "Stages (wall time, m:ss):"
  for row in "${stage_rows[@]}"; do
    IFS=$'\t' read -r secs outcome name <<<"$row"
    printf '  %-34s %7s  %s\n' "$name" "$(stage_clock "$secs")" "$outcome"
  done
  if [ ${#entry_rows[@]} -gt 0 ]; then
    echo "  ctest entries of ${DCW_STAGE_ENTRY_SECONDS:-60} s or more (inside the stages above):"
    for row in "${entry_rows[@]}"; do
      IFS=$'\t' read -r secs rest <<<"$row"
      printf '    %-52s %7s\n' "$rest" "$(stage_clock "$secs")"
    done
  fi
  printf '  %-34s %7s\n' "total" "$(stage_clock $((SECONDS - stages_started)))"
}

stage_guard() {
  local minutes=$1 total=$((SECONDS - stages_started))
  [ "$total" -le $((minutes * 60)) ] && return 0
  echo "error: this run took $(stage_clock "$total"), past its limit of $minutes minutes (DCW_TEST_LIMIT_MINUTES);" \
    "CI allows 90. The slowest:"
  { for row in "${stage_rows[@]}"; do IFS=$'\t' read -r secs outcome name <<<"$row"; printf '%s\tstage %s\n' "$secs" "$name"; done
    for row in "${entry_rows[@]}"; do IFS=$'\t' read -r secs rest <<<"$row"; printf '%s\tentry %s\n' "$secs" "$rest"; done
  } | sort -t$'\t' -k1,1nr | head -6 | while IFS=$'\t' read -r secs what; do
    printf '  %-60s %7s\n' "$what" "$(stage_clock "$secs")"
  done
  return 1
}
