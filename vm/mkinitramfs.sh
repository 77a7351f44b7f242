#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build (or reuse) the guest initramfs: busybox-static, the host's ip/tc/bpftool/jq, p0f's
# database, the project's guest binaries (a directory), every shared library they need, and
# vm/init.sh as /init.
#
# usage: mkinitramfs.sh [--bin-dir DIR]...   (guest programs: build/guest, the kernel's selftests)
# Prints the path of the gzip'd cpio as the last stdout line. Cached by the content of every input.
set -eu
DIE_STATUS=2 # every failure here is a failed build stage: a setup error for the caller
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cache.sh"
cache_bounds

bindirs=
while [ $# -gt 0 ]; do
	case $1 in
	--bin-dir) [ $# -ge 2 ] || usage_die "--bin-dir needs a directory"
		[ -d "$2" ] || usage_die "--bin-dir $2: no such directory"
		bindirs="$bindirs $2"; shift 2 ;;
	*) usage_die "mkinitramfs: unknown argument '$1'" ;;
	esac
done

busybox=/bin/busybox
[ -x "$busybox" ] && file_is_static=$(ldd "$busybox" 2>&1 | grep -c 'not a dynamic' || true) || file_is_static=0
[ "$file_is_static" -ge 1 ] || die "$busybox is not the static busybox (apt-get install busybox-static)"
# dash is the guest's /bin/sh: busybox's own shell runs its applets in preference to PATH, so
# `ip` would be busybox's, without netns or bpf support.
# jq: guest scripts read JSON with it, never with sed.
host_tools="/usr/sbin/ip /usr/sbin/tc /usr/sbin/bpftool /bin/dash /usr/bin/jq"
for t in $host_tools; do [ -x "$t" ] || die "$t missing (apt-get install iproute2 bpftool jq)"; done
# p0f's database: the server labels every record's SYN with it (fingerprint/p0f.h)
p0f_db=/etc/p0f/p0f.fp
[ -r "$p0f_db" ] || die "$p0f_db missing (apt-get install p0f)"
# netem's delay distribution tables (`--netem 'delay 2ms 1ms distribution normal'`): tc reads
# them from its library directory, so they go in at the host's path
tc_dists=$(ls /usr/lib/*/tc/*.dist 2>/dev/null) || die "tc's netem tables (/usr/lib/*/tc/*.dist) missing (apt-get install iproute2)"

# shellcheck disable=SC2086 # directory paths without spaces
bin_files() { [ -z "$bindirs" ] || find $bindirs -maxdepth 1 -type f | LC_ALL=C sort; }
guest_files() {
	printf '%s\n' "$busybox" $host_tools "$p0f_db" $tc_dists "$SYNTWIN_ROOT/vm/init.sh" "$0"
	bin_files
}
# Every input hashed on its own (file_hash exits on a failed read): a stale image is never
# taken for a new one.
files=$(guest_files) || die "listing the guest image's files failed"
lines=
for f in $files; do
	lines="$lines$f $(file_hash "$f")$NL" || exit 2
done
key=$(printf '%s' "$lines" | sha256sum | cut -c1-16)
out=$SYNTWIN_CACHE/initramfs/$key.cpio.gz
if [ -f "$out" ]; then
	touch "$out" || die "cannot touch $out" # used now: the prune keeps the newest
	printf '%s\n' "$out"
	exit 0
fi

stage "guest image: building initramfs $key"
mkdir -p "$SYNTWIN_CACHE/initramfs"
root=$(mktemp -d "$SYNTWIN_CACHE/initramfs/root.XXXXXX")
trap 'rm -rf "$root" "$root.list" "$root.sorted" "$root.cpio" "$root.gz"' EXIT
mkdir -p "$root"/bin "$root"/sbin "$root"/usr/bin "$root"/usr/sbin "$root"/syntwin/bin \
	"$root"/proc "$root"/sys "$root"/dev "$root"/run "$root"/tmp "$root"/root "$root"/etc \
	"$root"/mnt "$root"/var
ln -s ../run "$root/var/run"
cp "$busybox" "$root/bin/busybox"
# Busybox applets, except those the real host tools replace (its ip/tc lack netns, bpf, ...).
for applet in $("$busybox" --list); do
	case " $host_tools sh ash " in *"/$applet "* | *" $applet "*) continue ;; esac
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
cp "$SYNTWIN_ROOT/vm/init.sh" "$root/init"
chmod 755 "$root/init"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\n' >"$root/etc/group"
mkdir -p "$root/etc/p0f"
cp "$p0f_db" "$root/etc/p0f/p0f.fp"
for f in $tc_dists; do
	mkdir -p "$root$(dirname "$f")" && cp "$f" "$root$f" || die "copying $f failed"
done

# Copy a dynamically linked ELF file's libraries (and the loader) at their host paths.
copy_libs() {
	ldd "$1" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p' |
		while read -r lib; do
			[ -e "$root$lib" ] && continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
}
for t in $host_tools; do
	cp -L "$t" "$root$t"
	copy_libs "$t"
done
ln -sf dash "$root/bin/sh"
if [ -n "$bindirs" ]; then
	bin_files | while read -r f; do
		cp "$f" "$root/syntwin/bin/"
		case $(head -c 4 "$f" | od -An -c | tr -d ' ') in
		177ELF) copy_libs "$f" ;;
		esac
	done
fi
# No pipes between the archive's stages (dash has no pipefail): each one's failure stops here.
(cd "$root" && find . >"$root.list") || die "listing the guest image failed"
LC_ALL=C sort "$root.list" >"$root.sorted" || die "sorting the guest image list failed"
(cd "$root" && cpio -o -H newc --quiet <"$root.sorted" >"$root.cpio") || die "cpio failed"
# a temp name of this build's own: two builds of one image (parallel tests) each finish theirs
gzip -1 <"$root.cpio" >"$root.gz" || die "gzip failed"
rm -f "$root.list" "$root.sorted" "$root.cpio"
mv "$root.gz" "$out"
prune_newest "$SYNTWIN_KEEP_IMAGES" "$SYNTWIN_CACHE"/initramfs/*.cpio.gz
stage "guest image: $(du -h "$out" | cut -f1) in $out"
printf '%s\n' "$out"
