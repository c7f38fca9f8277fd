/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * A user's XDP program for the integration tests (xdp_prog=, and the
 * program "someone else" attaches for use_pinned_map=1 and use_cni=1):
 * frames of the tests' ethertype (IEEE 802 local experimental, 0x88B5, see
 * lib/frames.py) go to the AF_XDP socket of their queue, if any; every other
 * frame goes on to the kernel stack.  The XSKMAP has the name the driver
 * looks for, xsks_map.  Not multi-buffer aware, unless built as
 * xdp_ethertype_frags.bpf.c does.
 */

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define TEST_ETHERTYPE 0x88B5

#ifndef PROG_SECTION
#define PROG_SECTION "xdp"
#endif

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

SEC(PROG_SECTION)
int test_ethertype(struct xdp_md *ctx)
{
	const void *data = (void *)(long)ctx->data;
	const void *end = (void *)(long)ctx->data_end;
	const struct ethhdr *eth = data;

	if ((const void *)(eth + 1) > end || eth->h_proto != bpf_htons(TEST_ETHERTYPE))
		return XDP_PASS;
	return bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS);
}

char _license[] SEC("license") = "Dual BSD/GPL";
