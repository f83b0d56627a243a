/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slabx internals shared between the module's source files: the headers
 * of the layers, and the few declarations of the files that have none.
 * See "Layers" in Documentation/design.md.
 */
#ifndef _SLABX_INTERNAL_H
#define _SLABX_INTERNAL_H

#include <linux/llist.h>

#include "slabx_barn.h"
#include "slabx_cache.h"
#include "slabx_checkers.h"
#include "slabx_reserve.h"
#include "slabx_sheaf.h"
#include "slabx_slab.h"

/* trylock_pages.c: the page provider */
struct page *slabx_pages_alloc(int nid, gfp_t gfp, unsigned int order);
void slabx_pages_free(struct page *page, unsigned int order);
unsigned long slabx_pages_held(void);
int slabx_fault_injected_pages(void);
void slabx_pages_account(unsigned int order, long nr);
int slabx_nolock_pages_init(void);
void slabx_nolock_pages_exit(void);
void slabx_nolock_pages_show(struct seq_file *m);

/* rcu_free.c */
void slabx_rcu_wait(struct slabx_cache *s);
void slabx_rcu_free_submit_pcs(struct slabx_cache *s,
			       struct slabx_cpu_sheaves *pcs, int nid);
void slabx_rcu_free_flush_cpu(struct slabx_cache *s, unsigned int cpu);
int slabx_fault_injected_rcu_sheaf(void);

/* rcu_monitor.c */
void slabx_rcu_monitor_arm(void);
void slabx_rcu_free_monitor_exit(void);

/* objpool.c */
struct seq_file;
typedef void (*slabx_objpool_show_cb)(struct seq_file *m, const void *id,
				      const struct slabx_objpool_stats *st);
void slabx_objpools_show(struct seq_file *m, slabx_objpool_show_cb show);
void slabx_objpools_exit(void);
int slabx_pool_cache_init(struct slabx_cache *s, unsigned int nr);
void slabx_pool_cache_destroy(struct slabx_cache *s);
void *slabx_pool_cache_alloc(struct slabx_cache *s, gfp_t gfp);
void slabx_pool_hand_out(struct slabx_cache *s, void *obj, gfp_t gfp);
void slabx_pool_cache_free(struct slabx_cache *s, void *obj);
long slabx_pool_cache_obj_offset(struct slabx_cache *s, const void *ptr);
void slabx_pool_cache_report_leaks(struct slabx_cache *s);

/* nolock.c */
void slabx_nolock_cache_init(struct slabx_cache *s);
void slabx_nolock_cache_destroy(struct slabx_cache *s);

/* kmalloc.c */
int slabx_kmalloc_init(void);
void slabx_kmalloc_exit(void);

/* debugfs.c */
void slabx_debugfs_init(void);
void slabx_debugfs_exit(void);
void slabx_debugfs_add_cache(struct slabx_cache *s);
void slabx_debugfs_remove_cache(struct slabx_cache *s);

#endif /* _SLABX_INTERNAL_H */
