# SPDX-License-Identifier: GPL-2.0
# Shared shell helpers for syntwin's glue scripts: messages, cache paths, the kernel cache key.
# Sourced, never run. POSIX sh.

SYNTWIN_ROOT=${SYNTWIN_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
SYNTWIN_CACHE=${SYNTWIN_CACHE:-${HOME:-/root}/.cache/syntwin}

say() { printf 'syntwin: %s\n' "$*" >&2; }
stage() { printf '==> %s\n' "$*" >&2; }
die() { printf 'syntwin: error: %s\n' "$*" >&2; exit "${DIE_STATUS:-1}"; }
# Usage errors exit 2 (the CLI contract: 0 ok, 1 failure found, 2 usage/setup error).
usage_die() { printf 'syntwin: %s\n' "$*" >&2; exit 2; }
# build_failed STAGE STATUS: a build stage failed; every command stops with exit 2, naming it.
# Nothing built earlier (a stale bzImage, an old image) is used in its place.
build_failed() {
	printf 'syntwin: error: %s failed (status %s); stopping\n' "$1" "$2" >&2
	exit 2
}
NL='
'
# A series argument as people wrote it: "stock" for none, else the directory's name.
series_label() { [ "$1" = none ] && echo stock || basename "$1"; }
# num_arg WHAT VALUE MIN MAX: VALUE is a decimal number in MIN..MAX, else a usage error naming
# WHAT (at most 18 digits, so the shell's 64-bit arithmetic never overflows).
num_arg() {
	case $2 in
	'' | *[!0-9]*) usage_die "$1 '$2' is not a non-negative number" ;;
	esac
	[ ${#2} -le 18 ] && [ "$2" -ge "$3" ] && [ "$2" -le "$4" ] ||
		usage_die "$1 $2 is out of range ($3..$4)"
}

# shard_arg WHAT VALUE: VALUE is I/N with 0 <= I < N <= 1024 (--shard), printed without leading
# zeros; else a usage error naming WHAT. Use as shard=$(shard_arg ...) || exit 2.
shard_arg() {
	case $2 in */*) ;; *) usage_die "$1 '$2' is not I/N" ;; esac
	num_arg "$1's N" "${2#*/}" 1 1024
	num_arg "$1's I" "${2%%/*}" 0 "$(expr "${2#*/}" - 1)"
	printf '%s/%s\n' "$(expr "${2%%/*}" + 0)" "$(expr "${2#*/}" + 0)"
}

# points_arg_ok LIST: a --capture-points list (common/point_names.c checks it again in the guest;
# here it fails before anything is built or booted).
points_arg_ok() {
	[ "$1" = all ] && return 0
	[ -n "$1" ] || return 1
	case $1 in ,* | *, | *,,*) return 1 ;; esac
	for _p in $(echo "$1" | tr ',' ' '); do
		case $_p in xdp | tc | tcp | wire) ;; *) return 1 ;; esac
	done
}

# netem_spec_ok SPEC: SPEC could be tc netem's words (what they mean, tc itself says in the
# guest): not empty, at most 200 characters of letters, digits, '.', '%' and spaces, so it passes
# through the guest's command line as words and nothing else.
netem_spec_ok() {
	[ -n "$1" ] && [ ${#1} -le 200 ] || return 1
	case $1 in *[!A-Za-z0-9.%\ ]*) return 1 ;; esac
	case $1 in *[A-Za-z0-9]*) return 0 ;; esac
	return 1
}

# plain_path WHAT PATH: PATH has no white space and no glob character, else a usage error naming
# WHAT. For the paths the build scripts pass through word lists (series, the checkout, the
# cache); run and vm paths (--out, --share, --replay, --rerun) may hold any character.
plain_path() {
	case $2 in
	*[[:space:]]* | *[*?[]*) usage_die "$1 '$2': white space and the characters * ? [ are not" \
		"supported in this path; move it or choose another" ;;
	esac
}

# A results directory: new, empty, or marked by an earlier run (RESULTS_MARK, written by the
# host when it first uses the directory; a guest-planted symlink in its place is not followed).
RESULTS_MARK=.syntwin-results
results_dir_ok() {
	[ ! -e "$1" ] && [ ! -L "$1" ] && return 0
	[ -d "$1" ] || return 1
	[ -z "$(ls -A "$1")" ] || [ -f "$1/$RESULTS_MARK" ] && [ ! -L "$1/$RESULTS_MARK" ]
}
mark_results_dir() {
	[ -e "$1/$RESULTS_MARK" ] || [ -L "$1/$RESULTS_MARK" ] || : >"$1/$RESULTS_MARK"
}

# set_torn_tail_aside FILE: a guest stopped from outside (--timeout, a panic) can leave FILE's
# last line cut short, whatever the writer did: the guest's 9p client splits one large write
# into messages and the kill can fall between them. Bytes after the last newline are no
# record: they move to .NAME.torn beside FILE (kept for inspection, never counted) and FILE
# ends at its last whole line. Prints what it moved; returns 1 if it moved anything, 0 if FILE
# ended whole or is not a plain file (a symlink the guest planted is left alone). No pipes:
# dash has no pipefail, and each step's status is the function's.
set_torn_tail_aside() {
	[ -f "$1" ] && [ ! -L "$1" ] && [ -s "$1" ] || return 0
	_last=$(tail -c 1 "$1" | od -An -tx1) || die "cannot read $1"
	[ "${_last# }" != 0a ] || return 0
	_torn=$(dirname "$1")/.$(basename "$1").torn
	rm -f "$_torn" || die "cannot remove $_torn"
	tail -n 1 "$1" >"$_torn" || die "cannot write $_torn"
	_size=$(wc -c <"$1") && _cut=$(wc -c <"$_torn") || die "cannot size $1"
	truncate -s $((_size - _cut)) "$1" || die "cannot cut $1 back to its last whole line"
	say "$(basename "$1"): its last $_cut byte(s) were cut short mid-write (no record);" \
		"set aside in $_torn"
	return 1
}

# heartbeat PID LOG START: every 20 s while PID (a kernel's make) runs, how long since START and
# how many objects LOG shows compiled; returns when PID is gone (its status: wait PID).
heartbeat() {
	while kill -0 "$1" 2>/dev/null; do
		sleep 20
		kill -0 "$1" 2>/dev/null || break
		say "  building... $(($(date +%s) - $3))s, $(grep -c '^ *CC' "$2" || true) objects compiled"
	done
}

# The kernel versions we can build are exactly the Debian linux-source-VER packages.
kernel_pkg() { printf 'linux-source-%s\n' "$1"; }
kernel_tarball() { printf '/usr/src/linux-source-%s.tar.xz\n' "$1"; }
kernel_pkg_version() {
	dpkg-query -W -f='${Version}' "$(kernel_pkg "$1")" 2>/dev/null
}

# Resolve --series: "none" is the stock kernel, anything else a directory holding a `series` file.
series_dir() {
	case $1 in
	none) printf 'none\n' ;;
	*) (cd "$1" 2>/dev/null && pwd) || usage_die "--series $1: no such directory" ;;
	esac
}

# The patches named by a series file, one path per line, in order; comments and blanks skipped.
# Runs its loop in the calling shell (here-document, no pipe) so a bad entry really exits.
series_patches() {
	[ "$1" = none ] && return 0
	[ -f "$1/series" ] || usage_die "--series $1: no 'series' file in that directory"
	while read -r p; do
		[ -n "$p" ] || continue
		[ -f "$1/$p" ] || usage_die "$1/series names '$p', which does not exist"
		printf '%s/%s\n' "$1" "$p"
	done <<EOF
$(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$1/series")
EOF
}

# Validate a series in the current shell (the helpers below use it inside pipes).
series_check() { series_patches "$1" >/dev/null; }

# The kernel C files a gcov kernel profiles (kernel-series/coverage.config): fragment $1's
# `# gcov-profile:` lines, then every kernel C file patches $2... touch (never tools/, scripts/
# or samples/: those are not the kernel). Nothing when the fragment asks for no profiling.
gcov_profiled_files() {
	_frag=$1
	shift
	grep -q '^# gcov-profile: ' "$_frag" || return 0
	{
		sed -n 's/^# gcov-profile: *\([^ ]*\.c\) *$/\1/p' "$_frag"
		for _p in "$@"; do
			# one leading directory dropped, as patch -p1 does (b/, new/, linux-x.y/)
			sed -n 's|^+++ [^/ 	]*/\([^ 	]*\.c\)\([ 	].*\)\{0,1\}$|\1|p' "$_p"
		done | grep -Ev '^(tools|scripts|samples|Documentation)/' || true
	} | awk '!seen[$0]++'
}

# sha256 of file $1 (64 hex digits), or exit 2 naming it: never a key made from a failed read.
file_hash() {
	_h=$(sha256sum <"$1") || usage_die "cannot read $1"
	printf '%s\n' "${_h%% *}"
}

# Cache key = source package version + every patch (name and content, in order) + config fragment
# + any extra patches (mutants) layered on top. Printed as 16 hex digits. Each input is read on
# its own (no pipe hides a failed read); only the final digest of those lines is piped.
kernel_key() { # VER SERIESDIR FRAGMENT [EXTRA_PATCH...]
	_ver=$1 _sd=$2 _frag=$3
	shift 3
	_patches=$(series_patches "$_sd") || exit 2
	_lines="pkg $(kernel_pkg_version "$_ver")"
	for p in $_patches; do
		_lines="$_lines${NL}patch $(basename "$p") $(file_hash "$p")" || exit 2
	done
	for p in "$@"; do
		_lines="$_lines${NL}extra $(basename "$p") $(file_hash "$p")" || exit 2
	done
	_lines="$_lines${NL}config $(file_hash "$_frag")" || exit 2
	printf '%s\n' "$_lines" | sha256sum | cut -c1-16
}

# Hash of the series alone (reported in summaries so results name the patches they ran on).
series_hash() {
	_patches=$(series_patches "$1") || exit 2
	_lines=
	for p in $_patches; do
		_lines="$_lines$(file_hash "$p")  -$NL" || exit 2
	done
	printf '%s' "$_lines" | sha256sum | cut -c1-16
}

# The kernels syntwin supports (kernel-series/KERNELS), one version per line, the default first.
supported_kernels() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$SYNTWIN_ROOT/kernel-series/KERNELS"
}

# Kernel $1's reference series: kernel-series/$1, or exit 2 naming the supported ones.
reference_series() {
	[ -f "$SYNTWIN_ROOT/kernel-series/$1/series" ] ||
		usage_die "--kernel $1: syntwin has no reference series for it (kernel-series/$1/;" \
			"supported: $(supported_kernels | tr '\n' ' ')); give --series DIR or --series none"
	printf '%s/kernel-series/%s\n' "$SYNTWIN_ROOT" "$1"
}

# provides_file SERIES: what the series declares it implements (common/provides.h), the file
# a run, the mutants built on it and `syntwin selftest` expect from; /dev/null, which declares
# nothing beyond the stock API, for `none` and for a series directory without one. With --tree,
# the user's --provides FILE (SYNTWIN_PROVIDES) is the declaration.
provides_file() {
	if [ -n "${SYNTWIN_PROVIDES:-}" ]; then
		printf '%s\n' "$SYNTWIN_PROVIDES"
	elif [ "$1" != none ] && [ -f "$1/provides" ]; then
		printf '%s/provides\n' "$(cd "$1" && pwd)"
	else
		printf '/dev/null\n'
	fi
}

# tree_facts KDIR: what the judge's drop rules need to know of the kernel tree built in KDIR
# (compare/tree_facts.h), from that build's own record: its release and its .config.
tree_facts() {
	v=$(sed -n '1s/^\([0-9]\{1,3\}\.[0-9]\{1,3\}\)[.-].*/\1/p' "$1/release") &&
		[ -n "$v" ] || return 1
	[ -s "$1/config" ] || return 1
	ao=n
	! grep -qx 'CONFIG_TCP_AO=y' "$1/config" || ao=y
	printf '# the kernel tree built in %s (vm/lib.sh tree_facts)\nversion %s\ntcp_ao %s\n' \
		"$1" "$v" "$ao"
}

kernel_dir() { printf '%s/kernel/%s-%s\n' "$SYNTWIN_CACHE" "$1" "$2"; }
