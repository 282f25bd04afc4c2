# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# contrib/lab/up_fabric.sh: the simulated InfiniBand fabric: the net file fabricfit generate
# writes, ibsim serving it, and the live discovery into the snapshot topology/fabricfit reads
# (plus topology.conf for --topology tree or block).

# True if an abstract unix socket "@NAME" exists (ibsim binds @<IBSIM_SOCKNAME>:ctl). Uses ss:
# /proc/net/unix does not show abstract names everywhere (gVisor). Without ss: false.
abstract_socket_exists() {
  command -v ss >/dev/null || return 1
  ss -xa 2>/dev/null | grep -qF " @$1"
}

generate_fabric() {
  local -a args=(generate --leaves "$LEAVES" --hosts-per-leaf "$HOSTS_PER_LEAF" --spines "$SPINES"
                 --uplinks "$UPLINKS" --rails "$RAILS" -o "$NETFILE" --slurm-nodes)
  [ "$STORAGE_HCAS" = 0 ] || args+=(--storage-hcas)
  [ "$NVL_DOMAIN_SIZE" = 0 ] || args+=(--nvl-domain-size "$NVL_DOMAIN_SIZE" --blocks-output "$LAB_DIR/blocks.conf")
  local d
  for d in "${DEGRADE[@]}"; do args+=(--degrade "$d"); done
  local out
  out=$("$FF_BIN" "${args[@]}" 2> "$LOGS/generate.log") || {
    show_tail "$LOGS/generate.log"; die "'$FF_BIN ${args[*]}' failed"; }
  NODELIST=$(awk 'NF { last = $0 } END { print last }' <<<"$out")
  local re='^[][A-Za-z0-9_.,-]+$'
  [[ $NODELIST =~ $re ]] || die "fabricfit generate --slurm-nodes printed '$out', not a node list"
  [ -s "$NETFILE" ] || die "fabricfit generate did not write $NETFILE"
}

# ibsim's compiled-in limits (2,048 nodes / 256 switches / 13,312 ports) are too small for big
# fabrics; size them from the net file, with headroom for run-time Link commands.
ibsim_limit_args() {
  awk '
    /^(Switch|Ca|Hca)[ \t]/ { nodes++; ports += $2 + 1; if ($1 == "Switch") sw++ }
    END {
      n = 2 * nodes; s = 2 * sw; p = 2 * ports
      if (n < 2048) n = 2048; if (s < 256) s = 256; if (p < 13312) p = 13312
      print "-N", n, "-S", s, "-P", p
    }' "$NETFILE"
}

start_ibsim() {
  local fifo=$IBSIM_DIR/console limits pid
  mkfifo "$fifo"
  limits=$(ibsim_limit_args)
  abstract_socket_exists "$IBSIM_SOCKNAME:ctl" &&
    die "an ibsim with IBSIM_SOCKNAME=$IBSIM_SOCKNAME is already running (not ours)"
  # The console is stdin: a FIFO opened read-write never reaches EOF (at EOF ibsim spins).
  # Its working directory must be writable.
  # shellcheck disable=SC2086 # $limits is "-N n -S s -P p"
  (cd "$IBSIM_DIR" && IBSIM_SOCKNAME=$IBSIM_SOCKNAME spawn ibsim ibsim ibsim $limits -s "$NETFILE" \
     0<> "$fifo" > "$LOGS/ibsim.log" 2>&1)
  pid=$(spawned_pid ibsim) || die "ibsim did not start"
  if ! wait_until "$TIMEOUT" ibsim_ready "$pid"; then
    show_tail "$LOGS/ibsim.log"; die "ibsim did not get ready"
  fi
  log "ibsim up (pid $pid, IBSIM_SOCKNAME=$IBSIM_SOCKNAME, $limits)"
}

ibsim_ready() {
  pid_alive "$1" || { show_tail "$LOGS/ibsim.log"; die "ibsim exited"; }
  grep -q 'Network simulator ready' "$LOGS/ibsim.log"
}

# Optional smoke test: discover the simulated fabric once and count the HCAs.
# Discovers the simulated fabric live, the way an admin would on a real subnet
# (`fabricfit discover` through libibnetdisc, here via libumad2sim), writing the snapshot
# topology/fabricfit reads, and checks it found every host the net file declares.
discover_fabric() {
  local want got
  [ -r "$UMAD2SIM_SO" ] || die "$UMAD2SIM_SO not found (package libumad2sim0)"
  want=$NODES
  local blocks=
  [ "$NVL_DOMAIN_SIZE" = 0 ] || blocks=$LAB_DIR/blocks.conf
  (cd "$IBSIM_DIR" &&
   IBSIM_SOCKNAME=$IBSIM_SOCKNAME LD_PRELOAD=$UMAD2SIM_SO timeout 120 "$FF_BIN" discover \
     ${COMPUTE_HCA:+--compute-hca "$COMPUTE_HCA"} ${blocks:+--blocks "$blocks"} -o "$SNAPSHOT" > "$LOGS/discover.log" 2>&1) ||
    { show_tail "$LOGS/discover.log"; die "fabricfit discover failed on the simulated fabric"; }
  rm -rf "$IBSIM_DIR"/sys-* 2>/dev/null || true
  # awk reads to the end (no exit): fabricfit must not die of SIGPIPE (pipefail) on a big fabric.
  got=$("$FF_BIN" show --json "$SNAPSHOT" | awk -F'[:,]' '/^  "hosts": / && !n++ { gsub(/ /, "", $2); print $2 }')
  [ "$got" = "$want" ] || die "fabricfit discover found ${got:-no} hosts, the fabric has $want"
  log "fabric discovered live through ibsim: $got hosts, snapshot $SNAPSHOT"
  # topology/tree gets the same fabric, as an admin would write it from the snapshot.
  if [ "$TOPOLOGY" = tree ]; then
    "$FF_BIN" show --slurm-topology-conf "$SNAPSHOT" > "$LAB_DIR/topology.conf" ||
      die "fabricfit show --slurm-topology-conf failed on $SNAPSHOT"
  fi
  # topology/block gets the same domains as its blocks.
  if [ "$TOPOLOGY" = block ]; then cp "$LAB_DIR/blocks.conf" "$LAB_DIR/topology.conf" || die "no blocks.conf"; fi
}
