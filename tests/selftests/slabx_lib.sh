# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# Sourced by the slabx kselftests, after ../kselftest/ktap_helpers.sh: where
# the modules are, what every test needs (a skip, exit 4 = KSFT_SKIP, as the
# kernel's kselftest/module.sh does, when it is missing), and the kernel log
# since a mark (the log is never cleared: it is not ours).

# Print the file of module $1: the one modinfo finds (installed under
# /lib/modules/$(uname -r), e.g. by `make -C KDIR M=... modules_install`),
# else $SLABX_MODULES/$1.ko or $SLABX_MODULES/tests/$1.ko (the test guest
# of scripts/run-tests.sh sets SLABX_MODULES=/modules).
slabx_mod_path()
{
	local p

	p=$(modinfo -n "$1" 2> /dev/null) && [ -f "$p" ] &&
		{ echo "$p"; return 0; }
	[ -n "${SLABX_MODULES:-}" ] || return 1
	for p in "$SLABX_MODULES/$1.ko" "$SLABX_MODULES/tests/$1.ko"; do
		[ -f "$p" ] && { echo "$p"; return 0; }
	done
	return 1
}

# Load module $1 with the parameters $2...; insmod, not modprobe, so that a
# test loads exactly what it names (slabx first, then its clients).
slabx_load()
{
	local name=$1 path

	shift
	path=$(slabx_mod_path "$name") ||
		{ ktap_print_msg "module $name not found"; return 1; }
	insmod "$path" "$@"
}

slabx_skip_all()
{
	ktap_skip_all "$*"
	exit "$KSFT_SKIP"
}

# After ktap_print_header: skip the whole file unless we are root, slabx
# is not loaded already (the tests load and unload it), slabx and the
# modules named in $@ are found, debugfs is mounted (or can be) and the
# kernel log can be marked and read back.
slabx_require()
{
	local m

	[ "$(id -u)" = 0 ] || slabx_skip_all "must be run as root"
	[ ! -e /sys/module/slabx ] ||
		slabx_skip_all "slabx is loaded already; unload it first"
	for m in slabx "$@"; do
		slabx_mod_path "$m" > /dev/null ||
			slabx_skip_all "module $m not found (modinfo -n $m; \$SLABX_MODULES=${SLABX_MODULES:-})"
	done
	grep -qs '^[^ ]* /sys/kernel/debug debugfs ' /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug 2> /dev/null ||
		slabx_skip_all "debugfs is not mounted on /sys/kernel/debug"
	[ -w /dev/kmsg ] || slabx_skip_all "cannot write /dev/kmsg"
	slabx_klog_mark
	dmesg | grep -q "$SLABX_KLOG_MARK\$" ||
		slabx_skip_all "lines written to /dev/kmsg do not reach dmesg (sysctl kernel.printk_devkmsg?)"
}

# Write a new mark into the kernel log; slabx_klog prints what was logged
# after it. If the mark has been overwritten, nothing is printed (and the
# test looking for its lines fails rather than reading stale ones).
slabx_klog_mark()
{
	SLABX_KLOG_N=$((${SLABX_KLOG_N:-0} + 1))
	SLABX_KLOG_MARK="slabx selftest mark $$.$SLABX_KLOG_N"
	echo "$SLABX_KLOG_MARK" > /dev/kmsg
}

slabx_klog()
{
	dmesg | sed -n "/$SLABX_KLOG_MARK\$/,\$p" | sed 1d
}

# Whether the running kernel is older than $1.$2: for what a kernel lacks
# (the peers slabx measures itself against), never for what slabx offers.
slabx_kernel_older()
{
	local v

	v=$(uname -r)
	[ "${v%%.*}" -lt "$1" ] ||
		{ [ "${v%%.*}" -eq "$1" ] && v=${v#*.} && [ "${v%%[!0-9]*}" -lt "$2" ]; }
}

# The value of KEY $2 in a stats file $1 (lines "KEY VALUE").
statval()
{
	awk -v k="$2" '$1 == k { print $2 }' "$1"
}
