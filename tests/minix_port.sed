# SPDX-License-Identifier: GPL-2.0
# Port the kernel's own fs/minix (its inode.c) to slabx, at build time,
# from the target kernel's source (tests/Kbuild): the inode cache, with
# its constructor and its RCU-delayed frees, becomes a slabx cache, as
# Documentation/porting.md tells a porter to do it; the file system
# registers as "slabx_minix", so that the kernel's own minix.ko can be
# timed against it in the same boot. Nothing else of fs/minix changes.
s|^#include "minix.h"$|&\n#include "../../slabx.h"|
s/^static struct kmem_cache \* *minix_inode_cachep;$/static struct slabx_cache *minix_inode_cachep;/
s/alloc_inode_sb(sb, minix_inode_cachep, GFP_KERNEL)/slabx_alloc(minix_inode_cachep, GFP_KERNEL)/
s/kmem_cache_free(minix_inode_cachep, /slabx_free(minix_inode_cachep, /
# kmem_cache_create(name, size, 0, SLAB_RECLAIM_ACCOUNT | SLAB_ACCOUNT
# [| SLAB_MEM_SPREAD], init_once): the constructor goes with the cache's
# arguments; slabx charges no memory cgroup (porting.md) and spreads no
# memory (SLAB_MEM_SPREAD did nothing in SLUB either).
/minix_inode_cachep = kmem_cache_create(/,/init_once);/c\
	struct slabx_cache_args args = { .ctor = init_once };\
\
	minix_inode_cachep = slabx_cache_create("minix_inode_cache",\
				sizeof(struct minix_inode_info), &args);
s/^\tkmem_cache_destroy(minix_inode_cachep);$/\tslabx_cache_destroy(minix_inode_cachep);/
s/^\(\t\.name\t*= \)"minix",$/\1"slabx_minix",/
s/^MODULE_ALIAS_FS("minix");$/MODULE_ALIAS_FS("slabx_minix");/
s/^MODULE_LICENSE("GPL");$/MODULE_DESCRIPTION("The kernel's minix file system with its inode cache on slabx");\n&/
/^MODULE_DESCRIPTION("Minix file system");$/d
