// SPDX-License-Identifier: GPL-2.0
/*
 * slabx barns: a per-NUMA-node store of full and empty sheaves, shared by
 * every CPU of the node.
 *
 * Not implemented yet (issue 3); not part of the build until it is.
 */
