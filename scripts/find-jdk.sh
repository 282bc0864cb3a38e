# Sourced by ./mvnw and ./ortho: sets ORTHO_JAVA_HOME to a JDK >= 25 or prints one line and exits.
# Search order: $JAVA_HOME, the `java` on $PATH, then /usr/lib/jvm/* (newest first).
# shellcheck shell=bash

ortho_jdk_feature_version() { # $1 = JDK home; prints its feature version (e.g. 25) or nothing
  local home=$1 version=""
  [ -x "$home/bin/java" ] || return 0
  if [ -r "$home/release" ]; then
    version=$(sed -n 's/^JAVA_VERSION="\([0-9][0-9]*\).*"/\1/p' "$home/release")
  fi
  if [ -z "$version" ]; then
    version=$("$home/bin/java" -XshowSettings:properties -version 2>&1 \
      | sed -n 's/^ *java\.specification\.version = \([0-9][0-9]*\).*/\1/p')
  fi
  echo "$version"
}

ortho_find_jdk() {
  local min=25 candidate v java_on_path
  local -a candidates=()
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  if java_on_path=$(command -v java 2>/dev/null); then
    candidates+=("$(dirname "$(dirname "$(readlink -f "$java_on_path")")")")
  fi
  while IFS= read -r candidate; do candidates+=("$candidate"); done \
    < <(ls -d /usr/lib/jvm/*/ 2>/dev/null | sed 's:/$::' | sort -rV)
  for candidate in "${candidates[@]}"; do
    v=$(ortho_jdk_feature_version "$candidate")
    if [ -n "$v" ] && [ "$v" -ge "$min" ]; then
      ORTHO_JAVA_HOME=$candidate
      return 0
    fi
  done
  echo "ortho: no JDK >= $min found (checked JAVA_HOME, java on PATH, /usr/lib/jvm/*); install one, e.g. Temurin 25, or set JAVA_HOME" >&2
  exit 1
}

ortho_find_jdk
