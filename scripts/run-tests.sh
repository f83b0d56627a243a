#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot a test kernel with slabx and its tests in an initramfs, then judge
# the run: every expected KUnit suite and kselftest present and passing,
# and no kernel splat anywhere in the console log.
#
# Usage: scripts/run-tests.sh FLAVOUR check|demo|bench
#   debug: QEMU x86_64 (TCG), 8 vCPUs: four on each of 2 NUMA nodes
#   debug-6.1: the same machine, the debug kernel built from Linux 6.1
#   rt:    the same machine, the debug kernel with PREEMPT_RT
#   kcsan: the same machine, the x86 kernel with KCSAN (data races)
#   perf:  the same machine, kernel without debug checkers (for bench)
#   um:    User-mode Linux, one CPU
#   stock-6.12, stock-6.12-rt, stock-6.1, stock-6.1-rt: the same machine,
#          Debian's own kernel image and headers (scripts/stock-kernel.sh);
#          no KUnit there: the kselftests (the torture test among them)
# Logs: build/FLAVOUR-MODE/{console.log,results.txt}; counts of a check in
# build/FLAVOUR-check/counts ("passed failed").
#
# SLABX_CMDLINE adds to the guest kernel's command line (slabx.PARAM=VALUE
# becomes a parameter of slabx.ko, slabx.tests=MOD,MOD... loads only those
# KUnit modules, slabx.selftests=NAME,NAME... runs only those kselftests,
# named without .sh); SLABX_VARIANT names such a run, which then logs into
# build/FLAVOUR-VARIANT-MODE/. kmemleak, built into the debug kernels, is
# off unless the command line turns it on: it serialises every allocation
# of the kernel, too slow for the stress tests under TCG.
#
# SLABX_EXPECT_LOG: an extended regex the console log must match, to show
# that a variant's command line took effect (rcu_nocbs= offloading).
#
# SLABX_KO: a slabx.ko (or .ko.xz) to test instead of the one built here,
# with the test modules built here against the same kernel (check-distro
# runs the stock guests on what DKMS installed).
#
# A test that provokes a report on purpose prints
#   slabx-expect: BEGIN NAME: KIND: TEXT
# before it and "slabx-expect: END NAME" after it: the run fails unless a
# line with TEXT came in between. KIND says which splat lines the report
# brings: "kasan" (BUG: KASAN:), "warning" (WARNING:) or "log" (none);
# any other splat in between still fails the run (see check_splats).
set -euo pipefail
. "$(dirname "$0")/common.sh"
# shellcheck source=splats.sh
. "$(dirname "$0")/splats.sh"

flavour=${1:?usage: run-tests.sh FLAVOUR check|demo}
mode=${2:?usage: run-tests.sh FLAVOUR check|demo|bench}
limit=${SLABX_TIMEOUT:-900}

case "$flavour" in
stock-*)
	read -r kdir image kmods < <("$SLABX_TOP/scripts/stock-kernel.sh" "$flavour")
	[ -n "$image" ] || exit 1
	kernel_src_extract "$kdir"
	# A distribution kernel has no KUnit, and may lack what a
	# kselftest needs (kmemleak): a skip is a skip there.
	cmdline="slabx.skips=ok ${SLABX_CMDLINE:-}"
	;;
*)
	kdir=$("$SLABX_TOP/scripts/kernel.sh" "$flavour")
	image=$kdir/arch/x86/boot/bzImage
	kmods=$kdir
	[ "$(flavour_arch "$flavour")" != um ] || image=$kdir/linux
	cmdline=${SLABX_CMDLINE:-}
	;;
esac
mod=$(KDIR=$kdir "$SLABX_TOP/scripts/build-module.sh" "$flavour")
[[ "$cmdline" == *kmemleak=* ]] || cmdline="kmemleak=off $cmdline"
tests=$(sed -n 's/.*slabx\.tests=\([^ ]*\).*/\1/p' <<< "$cmdline" | tr , ' ')
selftests=$(sed -n 's/.*slabx\.selftests=\([^ ]*\).*/\1/p' <<< "$cmdline" | tr , ' ')
out=$SLABX_OUT/$flavour${SLABX_VARIANT:+-$SLABX_VARIANT}-$mode
rm -rf "$out"
mkdir -p "$out"

# The guest: busybox, /init, the modules in /modules (tests/ below it), and
# the kselftests laid out as the kernel's selftests `make install` does:
# /selftests/slabx/ (ours), /selftests/kselftest/ (the kernel's helpers),
# /selftests/kselftest-list.txt (what to run).
make_initramfs()
{
	local root=$out/root ksft=$out/ksft sel t ko

	sel=$(src_dir "$TOOLS_SERIES")/tools/testing/selftests

	mkdir -p "$root"/{bin,dev,proc,sys,tmp,data,modules/tests,modules/kernel} \
		"$root"/selftests/{kselftest,slabx}
	cp /bin/busybox "$root/bin/"
	ln -s busybox "$root/bin/sh"
	# slabxinfo, static as busybox is, for its kselftest (slabx_info.sh).
	make -s -C "$SLABX_TOP/tools/slabxinfo" O="$out" static
	cp "$out/slabxinfo-static" "$root/bin/slabxinfo"
	cp "$SLABX_TOP/scripts/guest-init.sh" "$root/init"
	ko=${SLABX_KO:-$mod/slabx.ko}
	case $ko in
	*.xz) xz -dc "$ko" > "$root/modules/slabx.ko" ;;
	*) cp "$ko" "$root/modules/slabx.ko" ;;
	esac
	cp "$mod"/tests/*.ko "$root/modules/tests/"
	# The kernel's own modules that slabx_minix.sh loads, where the
	# kernel has them as modules: the loop device, the minix file system.
	for ko in drivers/block/loop fs/minix/minix; do
		if [ -f "$kmods/$ko.ko" ]; then
			cp "$kmods/$ko.ko" "$root/modules/kernel/"
		elif [ -f "$kmods/$ko.ko.xz" ]; then
			xz -dc "$kmods/$ko.ko.xz" > "$root/modules/kernel/${ko##*/}.ko"
		fi
	done
	# Its image, as slabx_minix.sh makes it where mkfs.minix is there.
	rm -f "$out/minix.img"
	truncate -s 32M "$out/minix.img"
	mkfs.minix -2 -n 30 -i 24000 "$out/minix.img" 32768 > /dev/null
	gzip -c "$out/minix.img" > "$root/data/minix.img.gz"
	rm "$out/minix.img"
	cp "$sel/kselftest/ktap_helpers.sh" "$root/selftests/kselftest/"
	# The list comes from the Makefile through the kernel's lib.mk, as in a
	# kernel tree (tools/testing/selftests/slabx/).
	mkdir -p "$ksft/slabx"
	ln -s "$sel/lib.mk" "$ksft/lib.mk"
	cp "$SLABX_TOP"/tests/selftests/* "$ksft/slabx/"
	make -s -C "$ksft/slabx" COLLECTION=slabx emit_tests \
		> "$root/selftests/kselftest-list.txt"
	[ -s "$root/selftests/kselftest-list.txt" ] ||
		{ echo "run: no kselftests in tests/selftests/Makefile" >&2; return 1; }
	if [ -n "$selftests" ]; then
		for t in $selftests; do
			grep -qx "slabx:$t.sh" "$root/selftests/kselftest-list.txt" ||
				{ echo "run: no kselftest $t" >&2; return 1; }
		done
		# shellcheck disable=SC2086 # one line per kselftest
		printf 'slabx:%s.sh\n' $selftests > "$out/kselftest-list.txt"
		mv "$out/kselftest-list.txt" "$root/selftests/kselftest-list.txt"
	fi
	cp "$SLABX_TOP"/tests/selftests/* "$root/selftests/slabx/"
	rm "$root/selftests/slabx/Makefile"
	chmod +x "$root/init"
	while IFS=: read -r _ t; do
		chmod +x "$root/selftests/slabx/$t"
	done < "$root/selftests/kselftest-list.txt"
	(cd "$root" && find . | cpio -o -H newc --quiet) > "$out/initramfs.cpio"
}

# Tests get 8 vCPUs on 2 nodes (8 possible CPUs, hotplug, remote nodes),
# or SLABX_CPUS: even, half on each node, or 1: one CPU on one node, a
# uniprocessor machine (with an SMP kernel), where an NMI can only come
# from the CPU it interrupts.
# The benchmark gets one vCPU per host core, at most 8: more vCPUs than
# host cores only share them, which measures the host's scheduler.
#
# A stock kernel runs on one host thread (single-threaded TCG, its vCPUs
# in turn): stock kernels have CONFIG_JUMP_LABEL, and QEMU 7.2's
# multi-threaded TCG sometimes lets a vCPU run a stale int3 of a static
# key being patched on another vCPU ("Oops: int3" in ttwu_do_activate
# when an event enables sched_wakeup's cmdline recording; 400 toggles of
# events/sched/sched_wakeup crash 6.12 and 6.12-rt without slabx loaded,
# and pass single-threaded). Our own kernels have no jump labels: they
# keep true parallel vCPUs for the races. The benchmark keeps them on a
# stock kernel too (its all-CPU figures need them; it toggles no event).
# shellcheck disable=SC2317 # called as "boot_$(flavour_arch ...)"
boot_x86_64()
{
	local cpus=${SLABX_CPUS:-8} half machine tcg=multi hole=

	# A hole in the direct map, below the top of memory, for the tests
	# of pointers into one (16 MiB of node 0, reserved: not mapped).
	[ "$mode" = bench ] || hole="memmap=16M\$768M"

	# The benchmark keeps two vCPUs on two nodes on a one-core host.
	[ "$mode" = bench ] && cpus=$(( $(nproc) < 8 ? $(nproc) : 8 ))
	[ "$mode" != bench ] || [ "$cpus" -ge 2 ] || cpus=2
	if [ "$cpus" -le 1 ]; then
		machine=(-smp "1,sockets=1,cores=1,threads=1"
			 -m 2G -object "memory-backend-ram,id=m0,size=2G"
			 -numa "node,nodeid=0,cpus=0,memdev=m0")
	else
		half=$((cpus / 2))
		machine=(-smp "$cpus,sockets=2,cores=$half,threads=1"
			 -m 2G -object "memory-backend-ram,id=m0,size=1G"
			 -object "memory-backend-ram,id=m1,size=1G"
			 -numa "node,nodeid=0,cpus=0-$((half - 1)),memdev=m0"
			 -numa "node,nodeid=1,cpus=$half-$((cpus - 1)),memdev=m1")
	fi
	[[ "$flavour" != stock-* || "$mode" = bench ]] || tcg=single
	timeout --foreground -k 10 "$limit" qemu-system-x86_64 \
		-accel "tcg,thread=$tcg" \
		"${machine[@]}" \
		-kernel "$image" \
		-initrd "$out/initramfs.cpio" \
		-append "console=ttyS0 panic=-1 kasan_multi_shot slabx.mode=$mode $hole $cmdline" \
		-display none -monitor none -no-reboot \
		-serial "file:$out/console.log" -serial "file:$out/results.txt" \
		< /dev/null
}

# shellcheck disable=SC2317 # called as "boot_$(flavour_arch ...)"
boot_um()
{
	# shellcheck disable=SC2086 # $cmdline: one word per argument
	timeout --foreground -k 10 "$limit" "$image" mem=1G \
		initrd="$out/initramfs.cpio" con0=fd:0,fd:1 con=null \
		panic=-1 slabx.mode="$mode" slabx.hostfs="$out" $cmdline \
		< /dev/null > "$out/console.log" 2>&1
}

# Lines of the results file between two markers.
section()
{
	sed -n "/^SLABX-$1-BEGIN\$/,/^SLABX-$1-END\$/p" "$out/results.txt" |
		sed '1d;$d'
}

# Parse one KTAP section with the kernel's parser; print "passed failed".
parse_section()
{
	local name=$1 log

	section "$name" > "$out/$name.ktap"
	log=$out/$name.parsed
	if python3 "$(src_dir "$TOOLS_SERIES")/tools/testing/kunit/kunit.py" parse \
		"$out/$name.ktap" > "$log" 2>&1; then
		:
	else
		echo "FAIL: $name results:" >&2
		grep -E 'FAILED|CRASHED|\[ERROR\]|not ok|Ran ' "$log" >&2 || cat "$log" >&2
	fi
	awk '/Ran [0-9]+ tests?:/ {
		p = 0; f = 0
		for (i = 1; i <= NF; i++) {
			if ($i == "passed:") p = $(i + 1) + 0
			if ($i == "failed:" || $i == "crashed:") f += $(i + 1) + 0
		}
		print p, f }' "$log"
}

# Suites the test modules define must all have reported.
check_suites()
{
	local want missing=0 files=("$SLABX_TOP"/tests/*.c) m

	if [ -n "$tests" ]; then
		files=()
		for m in $tests; do
			files+=("$SLABX_TOP/tests/$m.c")
		done
	fi
	want=$(grep -h -A1 'static struct kunit_suite' "${files[@]}" |
		sed -n 's/.*\.name = "\(.*\)",/\1/p')
	for s in $want; do
		grep -q "^# Subtest: $s\$" <(sed 's/^ *//' "$out/KUNIT.ktap") ||
			{ echo "FAIL: suite $s did not report" >&2; missing=1; }
	done
	return $missing
}

make_initramfs
echo "run: booting $flavour ($mode), log in $out/console.log" >&2
start=$(date +%s)
rc=0
"boot_$(flavour_arch "$flavour")" || rc=$?
echo "run: guest finished in $(( $(date +%s) - start ))s (rc $rc)" >&2
# A serial port ends its lines with CR LF.
[ -f "$out/results.txt" ] && sed -i 's/\r$//' "$out/results.txt"

fail=0
[ $rc -eq 0 ] || { echo "FAIL: guest exit status $rc (timeout is 124)" >&2; fail=1; }
grep -q '^SLABX-DONE$' "$out/results.txt" 2>/dev/null ||
	{ echo "FAIL: guest did not finish its script" >&2; fail=1; }
check_splats || fail=1
if [ -n "${SLABX_EXPECT_LOG:-}" ] &&
	! grep -E -q "$SLABX_EXPECT_LOG" "$out/console.log"; then
	echo "FAIL: no line matching \"$SLABX_EXPECT_LOG\" in $out/console.log" >&2
	fail=1
fi

if [ "$mode" != check ]; then
	grep -v '^SLABX-DONE$' "$out/results.txt" || true
	exit $fail
fi

read -r sp sf < <(parse_section SELFTESTS)
if [[ "$flavour" == stock-* ]]; then
	kp=0 kf=0
else
	read -r kp kf < <(parse_section KUNIT)
	check_suites || fail=1
	# KUnit's debugfs logs, where the results come from, hold 512
	# bytes per case and suite before 6.7: a long log loses its end.
	# Every result was printed whole on the console too.
	if grep -E -n '^[[:space:]]*not ok [0-9]+ ' "$out/console.log" \
		> "$out/not-ok.txt"; then
		echo "FAIL: a test reported \"not ok\" on the console:" >&2
		head -5 "$out/not-ok.txt" >&2
		fail=1
	fi
fi
{ [ -n "$sp" ] && [ -n "$kp" ]; } || { echo "FAIL: no results parsed" >&2; fail=1; }
passed=$(( ${sp:-0} + ${kp:-0} ))
failed=$(( ${sf:-0} + ${kf:-0} ))
[ $failed -eq 0 ] || fail=1
[ $fail -eq 0 ] || failed=$(( failed > 0 ? failed : 1 ))
echo "$passed $failed" > "$out/counts"
echo "run: $flavour: kselftest ${sp:-0} passed ${sf:-0} failed; KUnit ${kp:-0} passed ${kf:-0} failed" >&2
exit $fail
