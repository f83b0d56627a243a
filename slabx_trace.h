/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slabx tracepoints: trace system "slabx", in tracefs under
 * events/slabx/. cache.c defines them (CREATE_TRACE_POINTS); every other
 * source includes this header for the trace_*() calls. A disabled event
 * costs a static branch: arguments are values at hand, and anything
 * derived (the node of an object, a time stamp) is worked out in the
 * probe, or under trace_*_enabled().
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM slabx

#if !defined(_SLABX_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SLABX_TRACE_H

#include <linux/tracepoint.h>
#include <trace/events/mmflags.h>

#include "slabx_slab.h"

#ifndef _SLABX_TRACE_PATH
#define _SLABX_TRACE_PATH
/**
 * enum slabx_trace_path - where an object was handed out or taken back
 * @SLABX_TRACE_SHEAF: this CPU's sheaves (or a prefilled sheaf).
 * @SLABX_TRACE_SLAB: the slab layer.
 * @SLABX_TRACE_NOLOCK: slabx_alloc_nolock() or slabx_free_nolock().
 * @SLABX_TRACE_POOL: a pool-mode cache's pool.
 * @SLABX_TRACE_RESERVE: the cache's reserve (slabx_alloc_reserved()).
 */
enum slabx_trace_path {
	SLABX_TRACE_SHEAF,
	SLABX_TRACE_SLAB,
	SLABX_TRACE_NOLOCK,
	SLABX_TRACE_POOL,
	SLABX_TRACE_RESERVE,
};

/*
 * The cache name of an event, from s->name. __assign_str() lost its
 * source argument in 6.10: __string() has it
 * (Kbuild finds which, for cache.c, the only file that expands it).
 */
#ifdef SLABX_HAVE_ASSIGN_STR_DST
#define slabx_assign_cache()	__assign_str(cache)
#else
#define slabx_assign_cache()	__assign_str(cache, s->name)
#endif

/* The node of an object for the trace; pool objects have none. */
static inline int slabx_trace_nid(struct slabx_cache *s, const void *obj)
{
	return s->pool ? NUMA_NO_NODE : slabx_obj_nid(s, obj);
}

/* NUMA_NO_NODE for a node: this CPU's, resolved in the probe. */
static inline int slabx_trace_local(int nid)
{
	return nid == NUMA_NO_NODE ? numa_mem_id() : nid;
}
#endif

TRACE_DEFINE_ENUM(SLABX_TRACE_SHEAF);
TRACE_DEFINE_ENUM(SLABX_TRACE_SLAB);
TRACE_DEFINE_ENUM(SLABX_TRACE_NOLOCK);
TRACE_DEFINE_ENUM(SLABX_TRACE_POOL);
TRACE_DEFINE_ENUM(SLABX_TRACE_RESERVE);

#define slabx_show_path(path)					\
	__print_symbolic(path, { SLABX_TRACE_SHEAF, "sheaf" },	\
			 { SLABX_TRACE_SLAB, "slab" },		\
			 { SLABX_TRACE_NOLOCK, "nolock" },	\
			 { SLABX_TRACE_POOL, "pool" },		\
			 { SLABX_TRACE_RESERVE, "reserve" })

/*
 * show_gfp_flags() expands to more tokens than sparse takes ("too long
 * token expansion"): sparse checks the events with the short form.
 */
#if defined(show_gfp_flags) && !defined(__CHECKER__)
#define slabx_show_gfp(gfp)	show_gfp_flags(gfp)
#else
#define slabx_show_gfp(gfp)	((gfp) ? "?" : "none")
#endif

TRACE_EVENT(slabx_alloc,
	    TP_PROTO(struct slabx_cache *s, const void *obj, gfp_t gfp,
		     enum slabx_trace_path path),
	    TP_ARGS(s, obj, gfp, path),
	    TP_STRUCT__entry(__string(cache, s->name)
			     __field(const void *, obj)
			     __field(unsigned int, size)
			     __field(unsigned long, gfp)
			     __field(int, node)
			     __field(int, path)),
	    TP_fast_assign(slabx_assign_cache();
			   __entry->obj = obj;
			   __entry->size = s->object_size;
			   __entry->gfp = (__force unsigned long)gfp;
			   __entry->node = slabx_trace_nid(s, obj);
			   __entry->path = path;),
	    TP_printk("cache=%s obj=%p size=%u gfp=%s node=%d path=%s",
		      __get_str(cache), __entry->obj, __entry->size,
		      slabx_show_gfp(__entry->gfp), __entry->node,
		      slabx_show_path(__entry->path))
);

TRACE_EVENT(slabx_free,
	    TP_PROTO(struct slabx_cache *s, const void *obj, int nid,
		     enum slabx_trace_path path),
	    TP_ARGS(s, obj, nid, path),
	    TP_STRUCT__entry(__string(cache, s->name)
			     __field(const void *, obj)
			     __field(unsigned int, size)
			     __field(int, node)
			     __field(int, path)),
	    TP_fast_assign(slabx_assign_cache();
			   __entry->obj = obj;
			   __entry->size = s->object_size;
			   __entry->node = nid;
			   __entry->path = path;),
	    TP_printk("cache=%s obj=%p size=%u node=%d path=%s",
		      __get_str(cache), __entry->obj, __entry->size,
		      __entry->node, slabx_show_path(__entry->path))
);

DECLARE_EVENT_CLASS(slabx_sheaf_move,
		    TP_PROTO(struct slabx_cache *s, unsigned int nr),
		    TP_ARGS(s, nr),
		    TP_STRUCT__entry(__string(cache, s->name)
				     __field(unsigned int, nr)),
		    TP_fast_assign(slabx_assign_cache();
				   __entry->nr = nr;),
		    TP_printk("cache=%s objects=%u", __get_str(cache),
			      __entry->nr)
);

/* This CPU's main sheaf refilled from the node's slabs. */
DEFINE_EVENT(slabx_sheaf_move, slabx_sheaf_refill,
	     TP_PROTO(struct slabx_cache *s, unsigned int nr),
	     TP_ARGS(s, nr)
);

/* A sheaf's objects put back into their slabs. */
DEFINE_EVENT(slabx_sheaf_move, slabx_sheaf_flush,
	     TP_PROTO(struct slabx_cache *s, unsigned int nr),
	     TP_ARGS(s, nr)
);

DECLARE_EVENT_CLASS(slabx_barn,
		    TP_PROTO(struct slabx_cache *s, int nid, bool ok),
		    TP_ARGS(s, nid, ok),
		    TP_STRUCT__entry(__string(cache, s->name)
				     __field(int, node)
				     __field(bool, ok)),
		    TP_fast_assign(slabx_assign_cache();
				   __entry->node = slabx_trace_local(nid);
				   __entry->ok = ok;),
		    TP_printk("cache=%s node=%d success=%d", __get_str(cache),
			      __entry->node, __entry->ok)
);

/* A full sheaf taken from a barn, or none there. */
DEFINE_EVENT(slabx_barn, slabx_barn_get,
	     TP_PROTO(struct slabx_cache *s, int nid, bool ok),
	     TP_ARGS(s, nid, ok)
);

/* A full sheaf stored in a barn, or no room there. */
DEFINE_EVENT(slabx_barn, slabx_barn_put,
	     TP_PROTO(struct slabx_cache *s, int nid, bool ok),
	     TP_ARGS(s, nid, ok)
);

TRACE_EVENT(slabx_rcu_sheaf_submit,
	    TP_PROTO(struct slabx_cache *s, int nid, unsigned int nr),
	    TP_ARGS(s, nid, nr),
	    TP_STRUCT__entry(__string(cache, s->name)
			     __field(int, node)
			     __field(unsigned int, nr)),
	    TP_fast_assign(slabx_assign_cache();
			   __entry->node = nid;
			   __entry->nr = nr;),
	    TP_printk("cache=%s node=%d objects=%u", __get_str(cache),
		      __entry->node, __entry->nr)
);

TRACE_EVENT(slabx_rcu_sheaf_done,
	    TP_PROTO(struct slabx_cache *s, int nid, unsigned int nr,
		     u64 wait_ns, bool to_barn),
	    TP_ARGS(s, nid, nr, wait_ns, to_barn),
	    TP_STRUCT__entry(__string(cache, s->name)
			     __field(int, node)
			     __field(unsigned int, nr)
			     __field(u64, wait_ns)
			     __field(bool, to_barn)),
	    TP_fast_assign(slabx_assign_cache();
			   __entry->node = nid;
			   __entry->nr = nr;
			   __entry->wait_ns = wait_ns;
			   __entry->to_barn = to_barn;),
	    TP_printk("cache=%s node=%d objects=%u wait_ns=%llu to_barn=%d",
		      __get_str(cache), __entry->node, __entry->nr,
		      __entry->wait_ns, __entry->to_barn)
);

TRACE_EVENT(slabx_nolock_reserve_refill,
	    TP_PROTO(int nid, unsigned int order, unsigned int pages),
	    TP_ARGS(nid, order, pages),
	    TP_STRUCT__entry(__field(int, node)
			     __field(unsigned int, order)
			     __field(unsigned int, pages)),
	    TP_fast_assign(__entry->node = nid;
			   __entry->order = order;
			   __entry->pages = pages;),
	    TP_printk("node=%d order=%u pages=%u", __entry->node,
		      __entry->order, __entry->pages)
);

TRACE_EVENT(slabx_objpool_miss,
	    TP_PROTO(const void *pool, int cpu),
	    TP_ARGS(pool, cpu),
	    TP_STRUCT__entry(__field(const void *, pool)
			     __field(int, cpu)),
	    TP_fast_assign(__entry->pool = pool;
			   __entry->cpu = cpu;),
	    TP_printk("pool=%p cpu=%d", __entry->pool, __entry->cpu)
);

#endif /* _SLABX_TRACE_H */

/* Out of tree: define_trace.h finds this file with -I$(src) (see Kbuild). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE slabx_trace
#include <trace/define_trace.h>
