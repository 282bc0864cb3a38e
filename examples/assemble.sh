#!/bin/sh
# Assembles every example program into examples/target/<name>.vmfb with `ortho as-module`
# (which builds the launcher first if needed). Usage: examples/assemble.sh [name ...]
set -e
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/target"
mkdir -p "$out"
if [ "$#" -eq 0 ]; then
  set -- simple_mul mlp pipelined
fi
for name in "$@"; do
  "$here/../ortho" as-module --output="$out/$name.vmfb" "$here/$name.vmasm"
  echo "$out/$name.vmfb"
done
