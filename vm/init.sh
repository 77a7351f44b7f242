#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest PID 1: mount what syntwin needs, run the host's command from the ctl share, report its
# exit status (file + console marker) and power off. Never returns: PID 1 exiting is a panic.
set -u
export PATH=/syntwin/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root
# No ACPI in tinyconfig: power-off only halts. A reboot, with QEMU's -no-reboot, exits QEMU.
trap 'reboot -f' EXIT

log() { echo "syntwin-init: $*" >/dev/kmsg 2>/dev/null || echo "syntwin-init: $*"; }
# Optional mounts fail softly and name the config option that would provide them.
try_mount() { # CONFIG_OPTION mount-args...
	opt=$1
	shift
	mount "$@" 2>/dev/null || log "mount $* failed (is $opt set?)"
}

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null || true
try_mount CONFIG_TMPFS -t tmpfs -o mode=755 run /run
try_mount CONFIG_TMPFS -t tmpfs tmp /tmp
try_mount CONFIG_BPF_SYSCALL -t bpf bpf /sys/fs/bpf
try_mount CONFIG_CGROUPS -t cgroup2 cgroup2 /sys/fs/cgroup
mkdir -p /run/netns /mnt/ctl /mnt/share /src
# 9p shares: ctl (command + status), share (results, read-write), src (the repository, read-only).
p9="-t 9p -o trans=virtio,version=9p2000.L,msize=262144"
# shellcheck disable=SC2086
mount $p9 ctl /mnt/ctl || { echo "SYNTWIN-FATAL cannot mount the ctl share (CONFIG_9P_FS, CONFIG_NET_9P_VIRTIO)"; exit 1; }
# shellcheck disable=SC2086
grep -q share /mnt/ctl/mounts 2>/dev/null && try_mount CONFIG_9P_FS $p9 share /mnt/share
# shellcheck disable=SC2086
grep -q src /mnt/ctl/mounts 2>/dev/null && try_mount CONFIG_9P_FS $p9,ro src /src
# A debug kernel's kmemleak lives in debugfs (the directory exists only with CONFIG_DEBUG_FS).
[ ! -d /sys/kernel/debug ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null ||
	log "mount debugfs failed"
ip link set lo up
echo 0 >/proc/sys/kernel/printk_ratelimit 2>/dev/null || true

# kmemleak (debug kernels): one scan once the command is done, every suspected leak printed to
# the kernel log ("unreferenced object 0x...") for the runner's splat scan. The witness's BPF
# maps hold the addresses of the saved copies it follows, which would reference a leaked copy:
# the pins go first, so the maps are freed and kmemleak sees only the kernel's own pointers.
# kmemleak reports no object younger than 5 s (MSECS_MIN_AGE), hence the wait; and none whose
# contents changed since the scan before (its checksum: an object being written to may still be
# in use), so an object is first reported by the second scan that finds it unreferenced: two
# scans, back to back.
kmemleak_scan() {
	[ -w /sys/kernel/debug/kmemleak ] || return 0
	rm -rf /sys/fs/bpf/* 2>/dev/null
	echo 1 >/sys/module/kmemleak/parameters/verbose ||
		{ log "kmemleak: its reports could not be sent to the log; no leak check"; return 1; }
	sleep 6
	for pass in 1 2; do
		if ! echo scan >/sys/kernel/debug/kmemleak; then
			log "kmemleak: scan $pass failed (kmemleak disabled itself?); no leak check"
			return 1
		fi
	done
	log "kmemleak: scanned twice"
}

cd /mnt/share
echo SYNTWIN-READY
rc=0
sh /mnt/ctl/cmd </dev/null || rc=$?
# A leak check that could not run fails a command that passed (its reason in the console log).
kmemleak_scan || [ "$rc" != 0 ] || rc=1
echo "$rc" >/mnt/ctl/status
sync
# The kernel's own log, for the runner to scan for splats (vm/splat.c): a WARN or a KASAN
# report fails the run whatever the command said.
echo SYNTWIN-KLOG-BEGIN
dmesg || echo "SYNTWIN-KLOG-UNREADABLE"
echo SYNTWIN-KLOG-END
echo "SYNTWIN-EXIT $rc"
