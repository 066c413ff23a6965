#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Style gate: every tracked C++ file (git ls-files '*.h' '*.cpp') must be formatted as .clang-format
# at the top of the tree says. Without arguments, checks them with `clang-format --dry-run --Werror`
# and lists the files that differ; with --fix, formats those files in place.
# Usage: scripts/check-format.sh [--fix]   (env CLANG_FORMAT: the binary, default clang-format)
# Exit status: 0 all formatted (or fixed), 1 some files differ, 2 usage error or clang-format
# missing or failing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

fix=0
case "${1:-}" in
  '') ;;
  --fix) fix=1 ;;
  -h | --help) sed -n '3,8s/^# \{0,1\}//p' "$0"; exit 0 ;;
  *) echo "usage: scripts/check-format.sh [--fix]" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "usage: scripts/check-format.sh [--fix]" >&2; exit 2; }

cf=${CLANG_FORMAT:-clang-format}
if ! command -v "$cf" >/dev/null 2>&1; then
  echo "check-format: '$cf' not found; install clang-format 14 or later (Debian: apt-get install clang-format)," >&2
  echo "check-format: or point CLANG_FORMAT at one." >&2
  exit 2
fi
[ -f .clang-format ] || { echo "check-format: no .clang-format in $root" >&2; exit 2; }
# An option this clang-format does not know (or a typo) makes every file fail: say so once, clearly.
if ! config_error=$("$cf" --style=file --assume-filename=check.cpp --dump-config 2>&1 >/dev/null); then
  echo "check-format: $("$cf" --version) cannot use .clang-format:" >&2
  echo "$config_error" >&2
  exit 2
fi

git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "check-format: $root is not a git checkout (it checks the files git ls-files lists)" >&2; exit 2; }
files=()
while IFS= read -r -d '' f; do
  [ -f "$f" ] && files+=("$f") # tracked but deleted in the work tree: nothing to check
done < <(git ls-files -z -- '*.h' '*.cpp')
[ ${#files[@]} -gt 0 ] || { echo "check-format: no tracked *.h / *.cpp files" >&2; exit 2; }

# One clang-format per file, in parallel; each prints "diff<TAB>file" or "error<TAB>file<TAB>why".
jobs=$(nproc 2>/dev/null || echo 2)
# shellcheck disable=SC2016 # the inner script expands its own variables
results=$(printf '%s\0' "${files[@]}" | xargs -0 -n 16 -P "$jobs" sh -c '
  cf=$1; shift
  for f in "$@"; do
    if out=$("$cf" --style=file --dry-run --Werror "$f" 2>&1 >/dev/null); then
      continue
    elif printf "%s" "$out" | grep -q "clang-format-violations"; then
      printf "diff\t%s\n" "$f"
    else
      printf "error\t%s\t%s\n" "$f" "$(printf "%s" "$out" | head -n 1)"
    fi
  done' sh "$cf" | LC_ALL=C sort)

errors=$(printf '%s\n' "$results" | awk -F '\t' '$1 == "error" { print "  " $2 ": " $3 }')
if [ -n "$errors" ]; then
  echo "check-format: clang-format failed on:" >&2
  echo "$errors" >&2
  exit 2
fi
differ=()
while IFS=$'\t' read -r kind f; do
  [ "$kind" = diff ] && differ+=("$f")
done <<<"$results"

if [ ${#differ[@]} -eq 0 ]; then
  echo "check-format: ${#files[@]} files formatted as .clang-format says ($("$cf" --version))"
  exit 0
fi
if [ $fix -eq 1 ]; then
  printf '%s\0' "${differ[@]}" | xargs -0 -n 16 -P "$jobs" "$cf" --style=file -i
  echo "check-format: formatted ${#differ[@]} of ${#files[@]} files in place:"
  printf '  %s\n' "${differ[@]}"
  exit 0
fi
echo "check-format: ${#differ[@]} of ${#files[@]} files differ from .clang-format ($("$cf" --version)):" >&2
printf '  %s\n' "${differ[@]}" >&2
echo "check-format: see the changes with '$cf --style=file FILE | diff FILE -'; fix with scripts/check-format.sh --fix" >&2
exit 1
