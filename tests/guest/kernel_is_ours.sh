#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the guest: the running kernel is the one syntwin built — version from the source package,
# our LOCALVERSION, and every option of the config fragments set in /proc/config.gz.
set -u
fail=0
rel=$(uname -r)
case $rel in
6.*-syntwin*) echo "ok: uname -r = $rel" ;;
*) echo "FAIL: uname -r = $rel, expected 6.x...-syntwin"; fail=1 ;;
esac
[ -r /proc/config.gz ] || { echo "FAIL: no /proc/config.gz (CONFIG_IKCONFIG_PROC)"; exit 1; }
zcat /proc/config.gz >/tmp/config
n=0
# the fragment, and the running version's own lines (kernel-series/VER/qemu.config) if any
ver=$(echo "$rel" | cut -d. -f1-2)
vfrag=/src/kernel-series/$ver/qemu.config
[ -f "$vfrag" ] || vfrag=
# shellcheck disable=SC2086 # $vfrag: one path without spaces, or nothing
for want in $(cat /src/kernel-series/qemu.config $vfrag | grep '^CONFIG_'); do
	n=$((n + 1))
	grep -qxF "$want" /tmp/config || { echo "FAIL: $want not in /proc/config.gz"; fail=1; }
done
echo "checked $n fragment options"
[ -z "${1:-}" ] || { grep -q "$1" /proc/version /proc/cmdline 2>/dev/null || dmesg | grep -q "$1"; } ||
	{ echo "FAIL: marker '$1' not in the kernel log"; fail=1; }
exit $fail
