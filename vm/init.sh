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
ip link set lo up
echo 0 >/proc/sys/kernel/printk_ratelimit 2>/dev/null || true

cd /mnt/share
echo SYNTWIN-READY
rc=0
sh /mnt/ctl/cmd </dev/null || rc=$?
echo "$rc" >/mnt/ctl/status
sync
# The kernel's own log, for the runner to scan for splats (vm/splat.c): a WARN or a KASAN
# report fails the run whatever the command said.
echo SYNTWIN-KLOG-BEGIN
dmesg || echo "SYNTWIN-KLOG-UNREADABLE"
echo SYNTWIN-KLOG-END
echo "SYNTWIN-EXIT $rc"
