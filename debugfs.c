// SPDX-License-Identifier: GPL-2.0
/*
 * slabx debugfs: /sys/kernel/debug/slabx/
 *
 *   summary          one line per cache, and the pages slabx holds
 *   fail_pages       fault injection: slab page allocations left to fail
 *                    (negative: all), see slabx_fault_inject_pages()
 *   fail_rcu_sheaf   fault injection: attempts to get an rcu_free sheaf
 *                    left to fail, see slabx_fault_inject_rcu_sheaf()
 *   objpools         one line per objpool (pool-mode caches' included)
 *   nolock_pages     the any-context page path: counters, watermarks,
 *                    blocks in each node's reserve
 *   nolock_wmarks    write "LOW HIGH" to tune the reserves' watermarks
 *   <cache>/stats    geometry, occupancy, the barns' limits, event
 *                    counters, per-node slab lists and barns; the pool of
 *                    a pool-mode cache
 *   <cache>/cpu_stats  the event counters per possible CPU: a header
 *                    "# cpu NAME..." (the names of stats), then one line
 *                    "CPU VALUE..." per CPU (read by tools/slabxinfo)
 *
 * The sheaf capacity is fixed when a cache is created, so it is shown but
 * not writable: sheaves of two capacities would meet in the barns, and
 * resizing every CPU's sheaves would need all of them stopped at once.
 *
 * Lock order: slabx_caches_mutex -> slabx_node->lock (through
 * slabx_cache_info() and slabx_node_counts()); slabx_objpools_lock alone
 * (taken by slabx_objpools_show(), which lists each pool from slabx's own
 * memory of it, never from its head, which is the owner's).
 */
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#include "slabx_internal.h"
/* The SLABX_TEST hooks defined or used here. */
#include "tests/slabx_test_hooks.h"

static struct dentry *slabx_debugfs_root;

static void node_stats_show(struct seq_file *m, struct slabx_cache *s)
{
	int nid;

	for_each_node(nid) {
		struct slabx_node_counts c;

		slabx_node_counts(s, nid, &c);
		seq_printf(m, "node%d slabs=%lu partial=%lu empty=%lu objects=%lu inuse=%lu\n",
			   nid, c.slabs, c.partial, c.empty,
			   c.slabs * s->objs_per_slab,
			   c.slabs * s->objs_per_slab - c.free);
	}
	for_each_node(nid) {
		unsigned int full, empty;

		slabx_barn_occupancy(&s->node[nid]->barn, &full, &empty);
		seq_printf(m, "barn%d full=%u empty=%u\n", nid, full, empty);
	}
}

static void pool_stats_show(struct seq_file *m,
			    const struct slabx_objpool_stats *st)
{
	seq_printf(m, "objects=%d size=%d ring_bytes=%zu pops=%lu pushes=%lu pop_misses=%lu remote_pops=%lu drops=%lu outstanding=%ld debug_errors=%u\n",
		   st->nr_objs, st->obj_size, st->ring_bytes, st->pops,
		   st->pushes, st->pop_misses, st->remote_pops, st->drops,
		   st->outstanding, st->debug_errors);
}

/* One pool of slabx_objpools_show(): its id is slabx's memory, not a head. */
static void objpool_show(struct seq_file *m, const void *id,
			 const struct slabx_objpool_stats *st)
{
	seq_printf(m, "%p ", id);
	pool_stats_show(m, st);
}

static int objpools_show(struct seq_file *m, void *v)
{
	slabx_objpools_show(m, objpool_show);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(objpools);

static int nolock_pages_show(struct seq_file *m, void *v)
{
	slabx_nolock_pages_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nolock_pages);

static ssize_t nolock_wmarks_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	unsigned int low, high;
	char buf[32];

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%u %u", &low, &high) != 2)
		return -EINVAL;
	return slabx_nolock_set_watermarks(low, high) ?: len;
}

static const struct file_operations nolock_wmarks_fops = {
	.write = nolock_wmarks_write,
	.llseek = noop_llseek,
};

static int stats_show(struct seq_file *m, void *v)
{
	struct slabx_cache *s = m->private;
	struct slabx_info info;
	int i;

	slabx_cache_info(s, &info);
	seq_printf(m, "name %s\n", s->name);
	seq_printf(m, "object_size %u\n", info.object_size);
	seq_printf(m, "stride %u\n", info.stride);
	seq_printf(m, "align %u\n", info.align);
	seq_printf(m, "order %u\n", info.order);
	seq_printf(m, "objs_per_slab %u\n", info.objs_per_slab);
	seq_printf(m, "sheaf_capacity %u\n", info.sheaf_capacity);
	seq_printf(m, "objects_inuse %lu\n", info.objects_inuse);
	seq_printf(m, "objects_total %lu\n", info.objects_total);
	seq_printf(m, "slabs %lu\n", info.slabs);
	seq_printf(m, "pages %lu\n", info.slabs << info.order);
	seq_printf(m, "objects_barn %lu\n", info.objects_barn);
	seq_printf(m, "sheaves_barn_empty %lu\n", info.sheaves_barn_empty);
	seq_printf(m, "barn_max_full %u\n", info.barn_max_full);
	seq_printf(m, "barn_max_empty %u\n", SLABX_BARN_MAX_EMPTY);
	seq_printf(m, "objects_rcu_waiting %lu\n", info.objects_rcu_waiting);
	seq_printf(m, "objects_reserve %lu\n", info.objects_reserve);
	seq_printf(m, "reserve_target %lu\n", info.reserve_target);
	seq_printf(m, "reserve_bytes %lu\n", info.reserve_bytes);
	for (i = 0; i < SLABX_NR_STATS; i++)
		seq_printf(m, "%s %lu\n", slabx_stat_names[i],
			   slabx_cache_stat(s, i));
	node_stats_show(m, s);
	if (s->pool) {
		struct slabx_objpool_stats st;

		slabx_objpool_get_stats(s->pool, &st);
		seq_puts(m, "pool ");
		pool_stats_show(m, &st);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

/* The counters of stats, split by CPU: they are summed over these. */
static int cpu_stats_show(struct seq_file *m, void *v)
{
	struct slabx_cache *s = m->private;
	int cpu, i;

	seq_puts(m, "# cpu");
	for (i = 0; i < SLABX_NR_STATS; i++)
		seq_printf(m, " %s", slabx_stat_names[i]);
	seq_putc(m, '\n');
	for_each_possible_cpu(cpu) {
		const struct slabx_stats *st = per_cpu_ptr(s->stats, cpu);

		seq_printf(m, "%d", cpu);
		for (i = 0; i < SLABX_NR_STATS; i++)
			seq_printf(m, " %lu", slabx_stats_read(st, i));
		seq_putc(m, '\n');
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cpu_stats);

static int summary_show(struct seq_file *m, void *v)
{
	struct slabx_cache *s;

	seq_puts(m, "# name object_size stride order objs_per_slab objects_inuse objects_total slabs alloc free\n");
	mutex_lock(&slabx_caches_mutex);
	list_for_each_entry(s, &slabx_caches, list) {
		struct slabx_info info;

		slabx_cache_info(s, &info);
		seq_printf(m, "%s %u %u %u %u %lu %lu %lu %lu %lu\n", s->name,
			   info.object_size, info.stride, info.order,
			   info.objs_per_slab, info.objects_inuse,
			   info.objects_total, info.slabs,
			   slabx_cache_stat(s, SLABX_ALLOC),
			   slabx_cache_stat(s, SLABX_FREE));
	}
	mutex_unlock(&slabx_caches_mutex);
	seq_printf(m, "pages_held %lu\n", slabx_pages_held());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(summary);

static int fail_pages_get(void *data, u64 *val)
{
	*val = (s64)slabx_fault_injected_pages();
	return 0;
}

static int fail_pages_set(void *data, u64 val)
{
	slabx_fault_inject_pages((s64)val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(fail_pages_fops, fail_pages_get, fail_pages_set,
			 "%lld\n");

static int fail_rcu_sheaf_get(void *data, u64 *val)
{
	*val = (s64)slabx_fault_injected_rcu_sheaf();
	return 0;
}

static int fail_rcu_sheaf_set(void *data, u64 val)
{
	slabx_fault_inject_rcu_sheaf((s64)val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(fail_rcu_sheaf_fops, fail_rcu_sheaf_get,
			 fail_rcu_sheaf_set, "%lld\n");

/**
 * slabx_debugfs_add_cache() - create a cache's debugfs directory
 * @s: the new cache, whose name is unique.
 *
 * A debugfs failure is not an error for the cache: it just has no files.
 */
void slabx_debugfs_add_cache(struct slabx_cache *s)
{
	s->debugfs = debugfs_create_dir(s->name, slabx_debugfs_root);
	debugfs_create_file("stats", 0444, s->debugfs, s, &stats_fops);
	debugfs_create_file("cpu_stats", 0444, s->debugfs, s, &cpu_stats_fops);
}

/**
 * slabx_debugfs_remove_cache() - remove a cache's debugfs directory
 * @s: the cache; waits for readers of its files to finish.
 */
void slabx_debugfs_remove_cache(struct slabx_cache *s)
{
	debugfs_remove_recursive(s->debugfs);
	s->debugfs = NULL;
}

/**
 * slabx_debugfs_init() - create /sys/kernel/debug/slabx
 *
 * slabx works without debugfs, so a failure here is not an error.
 */
void slabx_debugfs_init(void)
{
	slabx_debugfs_root = debugfs_create_dir("slabx", NULL);
	debugfs_create_file("summary", 0444, slabx_debugfs_root, NULL,
			    &summary_fops);
	debugfs_create_file("objpools", 0444, slabx_debugfs_root, NULL,
			    &objpools_fops);
	debugfs_create_file("nolock_pages", 0444, slabx_debugfs_root, NULL,
			    &nolock_pages_fops);
	debugfs_create_file("nolock_wmarks", 0200, slabx_debugfs_root, NULL,
			    &nolock_wmarks_fops);
	debugfs_create_file_unsafe("fail_pages", 0644, slabx_debugfs_root, NULL,
				   &fail_pages_fops);
	debugfs_create_file_unsafe("fail_rcu_sheaf", 0644, slabx_debugfs_root,
				   NULL, &fail_rcu_sheaf_fops);
}

/**
 * slabx_debugfs_exit() - remove the whole slabx tree
 */
void slabx_debugfs_exit(void)
{
	debugfs_remove_recursive(slabx_debugfs_root);
}
