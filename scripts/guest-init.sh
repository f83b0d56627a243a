#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# /init of the slabx test initramfs (busybox). The kernel command line says
# what to do: slabx.mode=check runs the kselftests and the KUnit modules,
# slabx.mode=demo loads slabx with the demo workload and shows its stats,
# slabx.mode=bench runs the microbenchmark and shows its figures.
# Results go to $RESULTS (a second serial port, or a file on hostfs under
# UML), the kernel log to the console; the host reads both.

/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
# Where the kselftests find the modules (they are not installed here).
export SLABX_MODULES=/modules
# What they would make on a full system (a minix image: busybox has no
# mkfs.minix).
export SLABX_DATA=/data

mode=check
hostfs=
params=
tests=
skips=fail
read -r cmdline < /proc/cmdline
for arg in $cmdline; do
	case "$arg" in
	slabx.mode=*) mode=${arg#slabx.mode=} ;;
	slabx.hostfs=*) hostfs=${arg#slabx.hostfs=} ;;
	slabx.tests=*) tests=$(echo "${arg#slabx.tests=}" | tr , ' ') ;;
	# The host left only those kselftests in the list.
	slabx.selftests=*) ;;
	slabx.skips=*) skips=${arg#slabx.skips=} ;;
	slabx.*=*) params="$params ${arg#slabx.}" ;;
	esac
done
if [ -n "$hostfs" ]; then
	mkdir -p /host
	mount -t hostfs none /host -o "$hostfs"
	RESULTS=/host/results.txt
else
	RESULTS=/dev/ttyS1
fi
: > "$RESULTS"

# Print /sys/kernel/debug/kunit/*/results as one KTAP document.
kunit_results()
{
	set -- /sys/kernel/debug/kunit/*/results
	[ -e "$1" ] || set --
	echo "KTAP version 1"
	echo "1..$#"
	i=0
	for f in "$@"; do
		i=$((i + 1))
		# Drop the per-suite header, renumber the suite's result line.
		awk -v n=$i 'NR > 2 {
			if ($0 ~ /^(not )?ok 1 /) sub(/ok 1 /, "ok " n " ");
			print }' "$f"
	done
}

# Run the kselftests of /selftests/kselftest-list.txt (COLLECTION:TEST
# lines, as the kernel's selftests `make install` writes it), each from its
# directory as the kernel's runner does, nesting each one's KTAP as a
# subtest. This guest gives them all they need (root, the modules,
# debugfs): a skip (exit 4, KSFT_SKIP) is a failure here, unless
# slabx.skips=ok says that the kernel may lack what a test needs (a
# distribution kernel without kmemleak).
selftests()
{
	list=/selftests/kselftest-list.txt
	echo "KTAP version 1"
	echo "1..$(grep -c . "$list")"
	i=0
	while IFS=: read -r dir prog; do
		i=$((i + 1))
		name=${prog%.sh}
		(cd "/selftests/$dir" && "./$prog") < /dev/null > /tmp/out 2>&1
		rc=$?
		sed 's/^/    /' /tmp/out
		case $rc in
		0) echo "ok $i $name" ;;
		4) if [ "$skips" = ok ]; then
			echo "ok $i $name # SKIP"
		   else
			echo "not ok $i $name # exit=4: skipped, but this guest has all it needs"
		   fi ;;
		*) echo "not ok $i $name # exit=$rc" ;;
		esac
	done < "$list"
}

case "$mode" in
check)
	selftests > /tmp/selftests.ktap
	# shellcheck disable=SC2086 # one word per parameter
	insmod /modules/slabx.ko $params
	# The KUnit modules (those slabx.tests= names, or all). The tests that
	# provoke reports on purpose come last: a KASAN report turns lockdep
	# off for the rest of the boot.
	if [ -z "$tests" ]; then
		for m in /modules/tests/*_test.ko; do
			[ -e "$m" ] || continue
			m=${m##*/}
			tests="$tests ${m%.ko}"
		done
	fi
	for m in $tests; do
		case "$m" in
		*_reports_test) ;;
		*) insmod "/modules/tests/$m.ko" ;;
		esac
	done
	for m in $tests; do
		case "$m" in
		*_reports_test) insmod "/modules/tests/$m.ko" ;;
		esac
	done
	{
		echo "SLABX-SELFTESTS-BEGIN"
		cat /tmp/selftests.ktap
		echo "SLABX-SELFTESTS-END"
		echo "SLABX-KUNIT-BEGIN"
		kunit_results
		echo "SLABX-KUNIT-END"
	} >> "$RESULTS"
	for m in $tests; do
		rmmod "$m"
	done
	rmmod slabx
	;;
demo)
	insmod /modules/slabx.ko
	insmod /modules/tests/slabx_demo.ko
	{
		slabxinfo
		echo
		echo "Every counter of the demo cache: slabxinfo demo;" \
			"the raw files: /sys/kernel/debug/slabx/demo/stats and" \
			"/sys/kernel/debug/slabx/summary."
	} >> "$RESULTS"
	rmmod slabx_demo
	rmmod slabx
	;;
bench)
	insmod /modules/slabx.ko
	insmod /modules/tests/slabx_bench.ko
	dmesg | sed -En 's/^(\[[^]]*\] )?slabx_bench: //p' >> "$RESULTS"
	rmmod slabx_bench
	insmod /modules/tests/slabx_objpool_bench.ko
	dmesg | sed -En 's/^(\[[^]]*\] )?slabx_objpool_bench: /objpool: /p' >> "$RESULTS"
	rmmod slabx_objpool_bench
	rmmod slabx
	;;
esac
echo "SLABX-DONE" >> "$RESULTS"
sync
poweroff -f
