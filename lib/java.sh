# shellcheck shell=bash
# JDK selection shared by bin/keel, .ci/run and the bench scripts. Source this file, then:
#
#   JAVA_HOME="$(keel_java_home)" || exit 1
#
# keel_java_home prints the home of a JDK whose major version is >= 25
# (override the floor with KEEL_MIN_JAVA). It prefers $JAVA_HOME when that is
# recent enough, otherwise the newest /usr/lib/jvm/* that is. It prints an
# explanation on stderr and returns 1 when none is found.

# Prints the major version of the java launcher at $1 (e.g. 25), or nothing. Reads the JDK's
# release file when it has one (a JVM started for `java -version` costs ~0.1 s, per JDK looked at),
# in bash itself: bin/keel runs this at every start.
keel_java_major() {
  local java_bin=$1 line="" ver release
  [[ -x "$java_bin" ]] || return 1
  release=${java_bin%/bin/*}/release
  if [[ -r $release ]]; then
    while IFS= read -r line; do [[ $line == JAVA_VERSION=* ]] && break; line=""; done <"$release"
    [[ $line == JAVA_VERSION=* ]] || line=""  # a last line without its newline
  fi
  if [[ -n $line ]]; then
    ver=${line#JAVA_VERSION=}
    ver=${ver//\"/}
  else
    line=$("$java_bin" -version 2>&1 | grep -m1 -E 'version "[^"]+"') || return 1
    ver=${line#*version \"}
    ver=${ver%%\"*}
  fi
  # Old scheme "1.8.0_x" means 8; new scheme "25", "25.0.1", "25-ea".
  if [[ $ver == 1.* ]]; then ver=${ver#1.}; fi
  ver=${ver%%[.+-]*}
  [[ $ver =~ ^[0-9]+$ ]] || return 1
  printf '%s\n' "$ver"
}

keel_java_home() {
  local min=${KEEL_MIN_JAVA:-25} major best="" best_major=0 dir
  if [[ -n "${JAVA_HOME:-}" ]]; then
    major=$(keel_java_major "$JAVA_HOME/bin/java" || true)
    if [[ -n $major && $major -ge $min ]]; then
      printf '%s\n' "$JAVA_HOME"
      return 0
    fi
  fi
  for dir in /usr/lib/jvm/*; do
    [[ -d "$dir" ]] || continue
    major=$(keel_java_major "$dir/bin/java" || true)
    [[ -n $major ]] || continue
    if (( major >= min && major > best_major )); then
      best=$dir
      best_major=$major
    fi
  done
  if [[ -n $best ]]; then
    printf '%s\n' "$best"
    return 0
  fi
  echo "error: no JDK >= $min found (JAVA_HOME='${JAVA_HOME:-}' and nothing suitable in /usr/lib/jvm); install one or point JAVA_HOME at it" >&2
  return 1
}
