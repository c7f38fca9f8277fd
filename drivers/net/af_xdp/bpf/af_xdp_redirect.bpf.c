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
 */

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "../af_xdp_bpf_abi.h"

/* Sized at load to the interface's queue count. */
struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

/* afxdp_direct's frames that did not go straight to a socket, by enum af_xdp_fallback. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, AF_XDP_FALLBACK_MAX);
	__type(key, __u32);
	__type(value, __u64);
} afxdp_fallbacks SEC(".maps");

/* The running kernel's XDP_REDIRECT_XSK, set before load. */
const volatile __u32 xdp_redirect_xsk_action = 0xffffffff;

/* Who loaded this copy, set before load; never read by the programs. */
const volatile struct af_xdp_owner bpf_metadata_afxdp_owner = { 0 };

/* Replaced before load by the running kernel's BPF_FUNC_redirect_xsk. */
static long (*bpf_redirect_xsk)(struct xdp_md *ctx, void *map, __u32 key, __u64 flags) =
	(void *)AF_XDP_REDIRECT_XSK_PLACEHOLDER;

SEC("xdp.frags")
int afxdp_map(struct xdp_md *ctx)
{
	return bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS);
}

SEC("xdp.frags")
int afxdp_direct(struct xdp_md *ctx)
{
	long act = bpf_redirect_xsk(ctx, &xsks_map, ctx->rx_queue_index, XDP_PASS);

	if (act != xdp_redirect_xsk_action) {
		__u32 key = act == XDP_REDIRECT ? AF_XDP_FALLBACK_VIA_MAP : AF_XDP_FALLBACK_PASSED;
		__u64 *n = bpf_map_lookup_elem(&afxdp_fallbacks, &key);

		if (n != NULL)
			(*n)++;
	}
	return act;
}

char _license[] SEC("license") = "Dual BSD/GPL";
