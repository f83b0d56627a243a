# SPDX-License-Identifier: GPL-2.0
#
# slabx commands (see README.md). Kbuild reads ./Kbuild, not this file.
#
#   make            build slabx.ko and the test modules (KDIR=... for
#                   another kernel build tree; default: the debug test kernel)
#   make run        boot the debug kernel, run the demo, print the stats
#   make bench      boot the perf kernel, print slabx vs kmem_cache figures
#   make check      lint + KUnit + kselftests on every flavour
#   make check-um   KUnit + kselftests under UML only (fast loop)
#   make check-debug  the same under QEMU with the debug kernel only
#   make check-rt   the same under QEMU with the PREEMPT_RT debug kernel
#   make check-kcsan  the same under QEMU with the KCSAN kernel
#   make lint       static checks only
#   make clean      remove build/ (the kernel cache stays)

FLAVOUR ?= debug
export KDIR

.PHONY: all module run bench check check-um check-debug check-rt check-kcsan \
	lint clean

all: module

module:
	@scripts/build-module.sh $(FLAVOUR)

run:
	@scripts/run-tests.sh debug demo

bench:
	@scripts/run-tests.sh perf bench

check:
	@scripts/check.sh

check-um check-debug check-rt check-kcsan:
	@scripts/run-tests.sh $(@:check-%=%) check

lint:
	@scripts/lint.sh

clean:
	rm -rf build
