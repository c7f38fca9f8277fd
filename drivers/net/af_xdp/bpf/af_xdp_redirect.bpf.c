/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The XDP programs the PMD attaches when the user gives none.  Built with
 * the project (clang -target bpf, with BTF) and embedded in the plugin:
 * nothing is compiled at run time.  One of them is loaded:
 *
 * afxdp_map     every kernel: a frame of a queue with one of our sockets
 *               goes to it through the XSKMAP, any other frame on to the
 *               kernel stack.  The flags argument of bpf_redirect_map() is
 *               the action on a map miss: no separate lookup.
 *
 * afxdp_direct  our patched kernel: bpf_redirect_xsk() answers
 *               XDP_REDIRECT_XSK when the queue has exactly one socket with
 *               an Rx ring and that socket is also the XSKMAP's entry at the
 *               key; the kernel then delivers through the queue's
 *               netdev_rx_queue (no bpf_redirect_info).  Otherwise it
 *               behaves as bpf_redirect_map(), so a socket out of the map
 *               receives nothing either way.  Frames that did not go the
 *               direct way are counted.
 *
 * Neither the helper's number nor the action's value is written here: the
 * PMD reads both from the running kernel's BTF and sets them before load
 * (the call's placeholder number, and xdp_redirect_xsk_action).  It also
 * sets the owner mark (struct af_xdp_owner): which process loaded the copy.
 *
 * The same two, writing the interface's Rx metadata in front of each frame,
 * are af_xdp_rx_meta.bpf.c's: a separate object, because they need kernel
 * functions (6.8+) that this one must load without.
 */

#include "af_xdp_common.bpf.h"

SEC("xdp.frags")
int afxdp_map(struct xdp_md *ctx)
{
	return afxdp_redirect_map(ctx);
}

SEC("xdp.frags")
int afxdp_direct(struct xdp_md *ctx)
{
	return afxdp_redirect_direct(ctx);
}
