// SPDX-License-Identifier: GPL-2.0
/*
 * slabx objpool: a lockless per-CPU ring MPMC pool of preallocated objects,
 * standalone and as a cache mode.
 *
 * Not implemented yet (issue 5); not part of the build until it is.
 */
