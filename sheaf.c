// SPDX-License-Identifier: GPL-2.0
/*
 * slabx sheaves: per-CPU main/spare/rcu_free arrays of object pointers in
 * front of the slabs, and the prefilled-sheaf API.
 *
 * Not implemented yet (issue 3); not part of the build until it is.
 */
