#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs a test program against a real system keyring of its own: a private D-Bus session bus with
# gnome-keyring's Secret Service, its login keyring created and unlocked in a throwaway HOME, so that
# nothing touches the user's keyring. Exit 77 (CTest: skipped) when dbus-run-session or
# gnome-keyring-daemon is missing, except in CI (CONTEXTLENS_CI or CI set), where that fails.
set -eu
missing=""
command -v dbus-run-session >/dev/null 2>&1 || missing="$missing dbus-run-session (Debian dbus)"
command -v gnome-keyring-daemon >/dev/null 2>&1 || missing="$missing gnome-keyring-daemon (Debian gnome-keyring)"
if [ -n "$missing" ]; then
  echo "with-keyring.sh: missing:$missing" >&2
  if [ -n "${CONTEXTLENS_CI:-}${CI:-}" ]; then exit 1; fi
  exit 77
fi
home=$(mktemp -d /tmp/contextlens-keyring.XXXXXX)
trap 'rm -rf "$home"' EXIT
mkdir -p "$home/run" && chmod 700 "$home/run"
HOME=$home XDG_RUNTIME_DIR=$home/run XDG_DATA_HOME=$home/data CL_KEYRING_MODE=service \
  dbus-run-session -- sh -c '
    printf "throwaway" | gnome-keyring-daemon --unlock --components=secrets >/dev/null || exit 1
    exec "$@"' sh "$@"
