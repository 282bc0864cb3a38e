#!/usr/bin/env bash
# bench/models.sh — IREE-compiled models (models/manifest.json), side by side in one run:
#   iree-benchmark-module  vs  ortho benchmark-module  (same .vmfb, same flags, same device)
#   and ONNX Runtime's Java API (bench OrtModelBenchmark, JMH) on the same ONNX graph and inputs.
# Runs are interleaved (per round, per entry and device: IREE, Ortho, ORT), repeated --rounds
# times; the table gives medians over rounds and the 1-minute load average seen at the runs.
#
# Usage (from anywhere; paths are resolved from the repository root):
#   bench/models.sh [--mode=warm|cold|both] [--rounds=3] [--devices=local-sync,local-task]
#                   [--entries=REGEX] [--tools=iree,ortho,ort] [--min_time=0.5] [--repetitions=5]
#                   [--warmup=W] [--raw=FILE] [--summarize=FILE] [--dry_run]
#   --mode      warm: --benchmark_min_warmup_time=W --benchmark_min_time=Ts --benchmark_repetitions=R
#                     (median of the R repetitions); ORT: JMH -wi W×1s -i R -r T.
#               cold: --benchmark_min_warmup_time=0 --benchmark_min_time=1x --benchmark_repetitions=1,
#                     a fresh process per sample, i.e. the first call after loading; ORT: JMH -bm ss
#                     -wi 0 -i 1 in a fresh JVM, i.e. the first OrtSession.run of a new session.
#   --warmup    seconds of warm-up for every tool; default 12 for Ortho (C2 must compile every
#               compiled kernel and the runtime around it; 2 s left the models with many dispatch
#               functions half interpreted on a busy machine) and 2 for IREE and ORT
#   --entries   regex on manifest entry names such as mlp.vmvx.b1 (default: all that IREE ran)
#   --raw       TSV of every sample (appended; default bench/target/models-raw.tsv)
#   --summarize print the tables from an existing raw TSV and run nothing
# Environment: IREE_BIN (directory of iree-benchmark-module; default models/.venv/bin, else PATH),
#   ORTHO (launcher script; default ./ortho), JAVA (JDK 25+ java for JMH; default as ./ortho finds
#   it). Needs jq and awk. Build first: ./mvnw -q -pl bench -am package -DskipTests
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
models="$root/models"
mode=both rounds=3 devices=local-sync,local-task entries=. tools=iree,ortho,ort
min_time=0.5 repetitions=5 warmup="" raw="$root/bench/target/models-raw.tsv" summarize="" dry_run=0

for arg in "$@"; do
  case "$arg" in
    --mode=*) mode=${arg#*=} ;;
    --rounds=*) rounds=${arg#*=} ;;
    --devices=*) devices=${arg#*=} ;;
    --entries=*) entries=${arg#*=} ;;
    --tools=*) tools=${arg#*=} ;;
    --min_time=*) min_time=${arg#*=}; min_time=${min_time%s} ;;
    --repetitions=*) repetitions=${arg#*=} ;;
    --warmup=*) warmup=${arg#*=}; warmup=${warmup%s} ;;
    --raw=*) raw=${arg#*=} ;;
    --summarize=*) summarize=${arg#*=} ;;
    --dry_run) dry_run=1 ;;
    -h|--help) sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "models.sh: unknown argument '$arg' (--help lists them)" >&2; exit 2 ;;
  esac
done
case "$mode" in warm|cold|both) ;; *) echo "models.sh: --mode must be warm, cold or both, got '$mode'" >&2; exit 2 ;; esac
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "models.sh: --rounds must be a positive integer, got '$rounds'" >&2; exit 2; }
[[ "$repetitions" =~ ^[1-9][0-9]*$ ]] || { echo "models.sh: --repetitions must be a positive integer, got '$repetitions'" >&2; exit 2; }
[[ "$min_time" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "models.sh: --min_time must be seconds such as 0.5, got '$min_time'" >&2; exit 2; }
[ -z "$warmup" ] || [[ "$warmup" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "models.sh: --warmup must be seconds such as 2, got '$warmup'" >&2; exit 2; }
ortho_warmup=${warmup:-12} native_warmup=${warmup:-2}
has_tool() { [[ ",$tools," == *",$1,"* ]]; }

# ------------------------------------------------------------------------------------ summary
# Medians over rounds of each (entry, device, tool, mode), ratios to IREE and ORT, load range.
summarize_raw() {
  local file=$1
  for m in warm cold; do
    grep -q "	$m	" "$file" 2>/dev/null || continue
    echo
    if [ "$m" = warm ]; then
      echo "### warm: wall time per call, µs (median over rounds of each tool's median)"
    else
      echo "### cold: the first call after loading, µs (median over rounds)"
    fi
    echo
    echo "| entry | case | device | IREE | Ortho | Ortho/IREE | ORT Java | Ortho/ORT | ORT/IREE | IREE CPU | Ortho CPU | CPU Ortho/IREE | rounds | load 1-min |"
    echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    awk -F'\t' -v m="$m" '
      function median(list,   n, a, i, j, t) {
        n = split(list, a, " ")
        for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
        if (n == 0) return ""
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
      }
      function fmt(v) { if (v == "") return "—"; return v >= 100 ? sprintf("%.0f", v) : v >= 10 ? sprintf("%.1f", v) : sprintf("%.2f", v) }
      function ratio(a, b,   r) { if (a == "" || b == "" || b == 0) return "—"; r = a / b
        return sprintf(r >= 100 ? "%.0f×" : r >= 10 ? "%.1f×" : r >= 0.1 ? "%.2f×" : r >= 0.01 ? "%.3f×" : "%.4f×", r) }
      $1 != "round" && $6 == m {
        key = $2 "\t" $3 "\t" $4
        if (!(key in seen)) { seen[key] = 1; order[++n] = key }
        if ($8 == "ok" && $7 != "" && $7 + 0 >= 0) { val[key, $5] = val[key, $5] " " $7; cnt[key, $5]++; if ($10 != "") cpu[key, $5] = cpu[key, $5] " " $10 }
        else if (!((key, $5) in fail)) fail[key, $5] = $8 == "ok" ? "no value" : $8
        l = $9 + 0
        if (!((key) in lmin) || l < lmin[key]) lmin[key] = l
        if (!((key) in lmax) || l > lmax[key]) lmax[key] = l
      }
      END {
        for (i = 1; i <= n; i++) {
          k = order[i]; split(k, p, "\t")
          iree = median(val[k, "iree"]); ortho = median(val[k, "ortho"]); ort = median(val[k, "ort"])
          r = cnt[k, "ortho"] + 0; if (cnt[k, "iree"] + 0 > r) r = cnt[k, "iree"] + 0
          si = ((k, "iree") in fail && iree == "") ? fail[k, "iree"] : fmt(iree)
          so = ((k, "ortho") in fail && ortho == "") ? fail[k, "ortho"] : fmt(ortho)
          sr = ((k, "ort") in fail && ort == "") ? fail[k, "ort"] : fmt(ort)
          # local-task: Ortho reports the calling thread only (its workers are elsewhere), IREE the process
          ci = median(cpu[k, "iree"]); co = p[3] == "local-sync" ? median(cpu[k, "ortho"]) : ""
          printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d | %.1f–%.1f |\n", p[1], p[2], p[3], si, so, ratio(ortho, iree), sr, ratio(ortho, ort), ratio(ort, iree), fmt(ci), fmt(co), ratio(co, ci), r, lmin[k], lmax[k]
        }
      }' "$file"
  done
}

if [ -n "$summarize" ]; then
  [ -f "$summarize" ] || { echo "models.sh: no raw file $summarize" >&2; exit 1; }
  summarize_raw "$summarize"
  exit 0
fi

# ------------------------------------------------------------------------------------ tools
command -v jq >/dev/null || { echo "models.sh: jq is required (apt-get install jq)" >&2; exit 1; }
[ -f "$models/manifest.json" ] || { echo "models.sh: no $models/manifest.json (the corpus, see models/README.md)" >&2; exit 1; }

iree_bench=""
if has_tool iree; then
  for candidate in "${IREE_BIN:+$IREE_BIN/iree-benchmark-module}" "$models/.venv/bin/iree-benchmark-module" \
      "$(command -v iree-benchmark-module 2>/dev/null)"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then iree_bench=$candidate; break; fi
  done
  if [ -z "$iree_bench" ]; then
    echo "models.sh: iree-benchmark-module NOT FOUND (looked in \$IREE_BIN, $models/.venv/bin, PATH):" >&2
    echo "  the IREE column stays empty. Install IREE 3.12.0 as models/README.md says:" >&2
    echo "  python3 -m venv models/.venv && models/.venv/bin/pip install -r models/requirements.txt" >&2
  fi
fi

ortho=${ORTHO:-$root/ortho}
if has_tool ortho; then
  # Build the jar once, up front, so no round pays for it.
  "$ortho" version >/dev/null 2>&1 || { echo "models.sh: '$ortho version' failed; build with ./mvnw -q -pl launcher -am package -DskipTests" >&2; exit 1; }
fi

bench_jar="$root/bench/target/benchmarks.jar"
java=${JAVA:-}
if has_tool ort; then
  if [ -z "$java" ]; then
    # shellcheck source=../scripts/find-jdk.sh
    . "$root/scripts/find-jdk.sh"
    java="$ORTHO_JAVA_HOME/bin/java"
  fi
  [ -f "$bench_jar" ] || { echo "models.sh: no $bench_jar; build it: ./mvnw -q -pl bench -am package -DskipTests" >&2; exit 1; }
fi

# ------------------------------------------------------------------------------------ entries
# name, case, vmfb, function, run flags (tab-separated; flags space-separated), ORT graph/case
mapfile -t rows < <(jq -r --arg re "$entries" '
  . as $m | .entries[] | select(.vmfb != null) | select(.name | test($re)) |
  . as $e | ($m.models[] | select(.name == $e.model) | .onnx | sub("^onnx/"; "") | sub("\\.onnx$"; "")) as $graph |
  [.name, .case, (.run_flags | join(" ")), ($graph + "/" + .case), ((.run_failures // {}) | keys | join(","))] | @tsv' \
  "$models/manifest.json")
[ ${#rows[@]} -gt 0 ] || { echo "models.sh: no manifest entry matches --entries='$entries'" >&2; exit 1; }

IFS=, read -r -a device_list <<< "$devices"
mkdir -p "$(dirname "$raw")"
[ -f "$raw" ] || printf 'round\tentry\tcase\tdevice\ttool\tmode\tus\tstatus\tload1\tcpu_us\n' > "$raw"
logs="$(dirname "$raw")/models-logs"   # output of every failed run
mkdir -p "$logs"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# GB console table → "wall_us cpu_us" of the _median row, else of the only row.
gb_times() {
  awk '
    function us(v, u) { return u == "ns" ? v / 1000 : u == "us" ? v : u == "ms" ? v * 1000 : u == "s" ? v * 1e6 : -1 }
    $1 ~ /^BM_.*\/real_time_median$/ { med = us($2, $3) " " us($4, $5) }
    $1 ~ /^BM_.*\/real_time$/ { one = us($2, $3) " " us($4, $5) }
    END { if (med != "") print med; else if (one != "") print one }' "$1"
}

# JMH output → median of the measured "Iteration N:" values, µs. A line printed by the forked JVM
# can land between "Iteration N:" and its value, so the value is the next "<number> <unit>/op".
jmh_time() {
  awk 'function us(v, u) { return u ~ /^ns/ ? v / 1000 : u ~ /^us/ ? v : u ~ /^ms/ ? v * 1000 : u ~ /^s/ ? v * 1e6 : -1 }
       /^Iteration +[0-9]+:/ { pending = 1 }
       pending && match($0, /[0-9][0-9.,]* +(ns|us|ms|s)\/op/) {
         split(substr($0, RSTART, RLENGTH), f, " +"); v = f[1]; gsub(",", "", v)
         x = us(v, f[2]); if (x >= 0) a[++n] = x; pending = 0 }
       END { if (n == 0) exit
         for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
         print (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) }' "$1"
}

record() { # round entry case device tool mode us status cpu
  local load; load=$(cut -d' ' -f1 /proc/loadavg)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$load" "${9:-}" >> "$raw"
  printf '  %-6s %-5s %-10s %-30s %12s µs  %s  (load %s)\n' "$6" "$5" "$4" "$2" "$7" "$8" "$load"
}

run_gb() { # tool binary round entry case device mode flags...
  local tool=$1 bin=$2 round=$3 entry=$4 case=$5 device=$6 m=$7; shift 7
  local out="$tmp/$tool.out" times status=ok
  if [ "$dry_run" = 1 ]; then echo "  (cd models && $bin $* --device=$device)"; return; fi
  if (cd "$models" && "$bin" "$@" --device="$device") > "$out" 2>&1; then
    times=$(gb_times "$out")
  fi
  if [ -z "${times:-}" ]; then
    status="FAIL: $(grep -m1 -E '[A-Z_]+;|[Ee]rror' "$out" | cut -c1-60 | tr '\t|' '  ')"
    [ "$status" = "FAIL: " ] && status="FAIL: $(tail -n1 "$out" | cut -c1-60 | tr '\t|' '  ')"
    cp "$out" "$logs/$tool-$entry-$device-$m.log"
    record "$round" "$entry" "$case" "$device" "$tool" "$m" "" "$status"
  else
    record "$round" "$entry" "$case" "$device" "$tool" "$m" "${times% *}" ok "${times#* }"
  fi
}

run_ort() { # round entry case device mode graph_case
  local round=$1 entry=$2 case=$3 device=$4 m=$5 graph_case=$6 threads=1 out="$tmp/ort.out" t
  [ "$device" = local-task ] && threads=2
  local ms; ms=$(awk -v s="$min_time" 'BEGIN { printf "%dms", s * 1000 }')
  local wi; wi=$(awk -v s="$native_warmup" 'BEGIN { n = int(s + 0.999); print n < 1 ? 1 : n }')
  # (native access allowed so ONNX Runtime's JNI load prints no warning into JMH's iteration lines)
  local flags=(-p "model=$graph_case" -p "intraOpThreads=$threads" -f 1 -jvmArgsAppend --enable-native-access=ALL-UNNAMED)
  if [ "$m" = warm ]; then
    flags+=(-wi "$wi" -w 1s -i "$repetitions" -r "$ms")
  else
    flags+=(-bm ss -wi 0 -i 1 -tu us)
  fi
  if [ "$dry_run" = 1 ]; then echo "  (cd $root && $java -Djmh.ignoreLock=true -jar bench/target/benchmarks.jar models.OrtModelBenchmark ${flags[*]})"; return; fi
  # (jmh.ignoreLock: other JMH runs on the machine hold /tmp/jmh.lock; JMH refuses to start otherwise)
  (cd "$root" && "$java" -Djmh.ignoreLock=true -jar "$bench_jar" 'models.OrtModelBenchmark' "${flags[@]}") > "$out" 2>&1
  t=$(jmh_time "$out")
  if [ -z "$t" ] || grep -q '<failure>' "$out"; then
    record "$round" "$entry" "$case" "$device" ort "$m" "" "FAIL: $(grep -m1 -E 'Exception|Error' "$out" | cut -c1-60 | tr '\t|' '  ')"
  else
    record "$round" "$entry" "$case" "$device" ort "$m" "$t" ok
  fi
}

echo "models.sh: $(date -u '+%F %T UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
[ -n "$iree_bench" ] && echo "  IREE:  $iree_bench"
has_tool ortho && echo "  Ortho: $ortho ($("$ortho" version 2>/dev/null | head -n1))"
has_tool ort && echo "  ORT:   $bench_jar models.OrtModelBenchmark on $java"
echo "  raw samples: $raw"

modes=(); [ "$mode" != cold ] && modes+=(warm); [ "$mode" != warm ] && modes+=(cold)
for round in $(seq 1 "$rounds"); do
  echo "round $round/$rounds"
  for row in "${rows[@]}"; do
    IFS=$'\t' read -r name case flags graph_case failed <<< "$row"
    read -r -a run_flags <<< "$flags"
    for device in "${device_list[@]}"; do
      if [[ ",$failed," == *",$device,"* ]]; then
        [ "$round" = 1 ] && echo "  skip $name on $device: iree-run-module failed on it when the corpus was built (manifest run_failures)"
        continue
      fi
      for m in "${modes[@]}"; do
        if [ "$m" = warm ]; then
          gb=(--benchmark_min_warmup_time="$native_warmup" --benchmark_min_time="${min_time}s" --benchmark_repetitions="$repetitions")
          ortho_gb=(--benchmark_min_warmup_time="$ortho_warmup" "${gb[@]:1}")
        else
          gb=(--benchmark_min_warmup_time=0 --benchmark_min_time=1x --benchmark_repetitions=1)
          ortho_gb=("${gb[@]}")
        fi
        if has_tool iree; then
          if [ -n "$iree_bench" ]; then run_gb iree "$iree_bench" "$round" "$name" "$case" "$device" "$m" "${run_flags[@]}" "${gb[@]}"
          elif [ "$dry_run" = 1 ]; then echo "  (iree-benchmark-module not found: no IREE run)"
          else record "$round" "$name" "$case" "$device" iree "$m" "" "FAIL: iree-benchmark-module not found"; fi
        fi
        has_tool ortho && run_gb ortho "$ortho" "$round" "$name" "$case" "$device" "$m" benchmark-module "${run_flags[@]}" "${ortho_gb[@]}"
        has_tool ort && run_ort "$round" "$name" "$case" "$device" "$m" "$graph_case"
      done
    done
  done
done
[ "$dry_run" = 1 ] && exit 0
summarize_raw "$raw"
