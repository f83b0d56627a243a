# SPDX-License-Identifier: GPL-2.0
# Retarget the kernel's own lib/test_objpool.c at slabx's objpool, at build
# time, from the target kernel's source (tests/Kbuild): the same API, with
# a slabx_ prefix, and a module of its own name.
s|#include <linux/objpool.h>|#include "../slabx.h"|
s/\bstruct objpool_head\b/struct slabx_objpool_head/g
s/\bobjpool_\(init\|pop\|push\|drop\|fini\|free\)(/slabx_objpool_\1(/g
s/^MODULE_DESCRIPTION("\(.*\)");/MODULE_DESCRIPTION("\1, retargeted at slabx's objpool");/
