/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slabx's private test API: hooks that only slabx's own tests may call,
 * exported by slabx.ko in the SLABX_TEST symbol namespace. A test module
 * that calls any of them says so with MODULE_IMPORT_NS(SLABX_TEST).
 *
 * Fault injection in the page provider, in getting an empty rcu_free
 * sheaf and in slabx's own metadata allocations; the any-context paths'
 * locks held by the caller; a synthetic shrink; the cache of a
 * slabx_kmalloc() size class; stopping the rcu_free age monitor; the
 * number of destroyed caches slabx keeps; a spinlock taken with the
 * per-CPU sheaves held, for lockdep to report.
 */
#ifndef _SLABX_TEST_HOOKS_H
#define _SLABX_TEST_HOOKS_H

#include <linux/spinlock_types.h>

#include "../slabx.h"

void slabx_fault_inject_pages(int nr);
void slabx_fault_inject_rcu_sheaf(int nr);
void slabx_rcu_free_monitor_pause(void);
void slabx_rcu_free_monitor_resume(void);
void slabx_fault_inject_meta(int nth);
void slabx_nolock_test_block(void);
void slabx_nolock_test_unblock(void);
void slabx_nolock_test_block_cache(struct slabx_cache *s);
void slabx_nolock_test_unblock_cache(struct slabx_cache *s);
unsigned long slabx_shrink_all(void);
struct slabx_cache *slabx_kmalloc_cache(size_t size);
unsigned int slabx_zombie_count(void);
bool slabx_test_lock_in_sheaves(struct slabx_cache *s, spinlock_t *lock);

#endif /* _SLABX_TEST_HOOKS_H */
