# SPDX-License-Identifier: GPL-2.0
#
# slabx commands (see README.md). Kbuild reads ./Kbuild, not this file.
#
#   make            build slabx.ko and the test modules for the running
#                   kernel (its headers: /lib/modules/$(uname -r)/build),
#                   or for the kernel build tree KDIR=dir, into
#                   build/mod-RELEASE/; FLAVOUR=NAME: for that test kernel
#                   (built first if need be), into build/mod-NAME/
#   make install    build for the running kernel (or KDIR) and install
#                   into /lib/modules/RELEASE/updates/, then depmod
#   make dkms-install  hand slabx to DKMS and install it for the running
#                   kernel (RELEASES="r1 r2": for those kernel releases)
#   make dkms-remove   remove slabx from DKMS, every release
#   make run        boot the debug kernel, run the demo, print the stats
#   make bench      the benchmarks in the perf, um-perf and stock views,
#                   3 boots each: medians of slabx vs the kernel and the
#                   floor
#   make check      lint + KUnit + kselftests on every flavour
#   make check-um   KUnit + kselftests under UML only (fast loop)
#   make check-debug  the same under QEMU with the debug kernel only
#   make check-debug-6.1  the same with the debug kernel built from 6.1
#   make check-rt   the same under QEMU with the PREEMPT_RT debug kernel
#   make check-kcsan  the same under QEMU with the KCSAN kernel
#   make check-distro  build, install, DKMS and kselftests on Debian's
#                   stock 6.1 and 6.12 kernels (generic and -rt)
#   make lint       static checks only
#   make clean      remove build/ (the kernel cache stays)

KDIR ?= /lib/modules/$(shell uname -r)/build
# Only the targets that build for a kernel of the user's choice see KDIR.
unexport KDIR

.PHONY: all module install dkms-install dkms-remove run bench check \
	check-um check-debug check-debug-6.1 check-rt check-kcsan \
	check-distro lint clean

all: module

module:
ifdef FLAVOUR
	@scripts/build-module.sh $(FLAVOUR)
else
	@KDIR=$(KDIR) scripts/build-module.sh
endif

install:
	@KDIR=$(KDIR) scripts/install-module.sh

dkms-install:
	@scripts/dkms.sh install $(RELEASES)

dkms-remove:
	@scripts/dkms.sh remove

run:
	@scripts/run-tests.sh debug demo

bench:
	@scripts/bench.sh

check:
	@scripts/check.sh

check-distro:
	@scripts/check-distro.sh

check-um check-debug check-debug-6.1 check-rt check-kcsan:
	@scripts/run-tests.sh $(@:check-%=%) check

lint:
	@scripts/lint.sh

clean:
	rm -rf build
