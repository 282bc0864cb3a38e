#!/usr/bin/env bash
# Runs dev.ortho.examples.RunModel (the embedding API example of README.md) in plain Java: no
# framework, the Ortho bundles on the class path as ordinary jars. Builds them first if needed.
#   examples/run-model.sh [models-directory]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/find-jdk.sh
. "$here/scripts/find-jdk.sh"
if [ ! -f "$here/examples/target/classes/dev/ortho/examples/RunModel.class" ] \
    || [ ! -d "$here/launcher/target/export/ortho" ]; then
  "$here/mvnw" -q -B -Dstyle.color=never package -DskipTests -pl launcher,examples -am >&2
fi
exec "$ORTHO_JAVA_HOME/bin/java" --add-modules jdk.incubator.vector \
  -cp "$here/launcher/target/export/ortho/*:$here/examples/target/classes" \
  dev.ortho.examples.RunModel "${1:-$here/models}"
