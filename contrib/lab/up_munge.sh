# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# contrib/lab/up_munge.sh: the lab's own munged, with its own key and socket, so the lab
# neither needs nor disturbs the host's munge.

start_munge() {
  local pid
  mungekey -c -k "$MUNGE_DIR/munge.key" > "$LOGS/mungekey.log" 2>&1 ||
    { show_tail "$LOGS/mungekey.log"; die "mungekey failed"; }
  (cd "$MUNGE_DIR" && spawn munged munged munged -F -S "$MUNGE_SOCK" --key-file="$MUNGE_DIR/munge.key" \
     --pid-file="$MUNGE_DIR/munged.pid" --log-file="$LOGS/munged.log" \
     --seed-file="$MUNGE_DIR/munged.seed" < /dev/null > "$LOGS/munged.stderr" 2>&1)
  if ! pid=$(spawned_pid munged) || ! wait_until "$TIMEOUT" munged_ready "$pid"; then
    show_tail "$LOGS/munged.stderr"; show_tail "$LOGS/munged.log"; die "munged did not start"
  fi
  log "munged up (pid $pid, socket $MUNGE_SOCK)"
}

munged_ready() {
  pid_alive "$1" || return 2
  [ -S "$MUNGE_SOCK" ]
}
