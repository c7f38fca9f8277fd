/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The kernel's XDP fast path, the baseline the benchmark puts beside the
 * AF_XDP drivers on the same veths (bench/run.py):
 *
 *   bench_drop      drop every frame: the least a receiver can do;
 *   bench_redirect  send every frame out of the interface in slot 0 of
 *                   tx_port (a DEVMAP), as an XDP forwarder would.
 *
 * Nothing else: no parsing, no counters (the veths count what they take and
 * what their peer receives).  bench-xdp (bench_xdp.c) loads one of them.
 */

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} tx_port SEC(".maps");

SEC("xdp.frags")
int bench_drop(struct xdp_md *ctx)
{
	(void)ctx;
	return XDP_DROP;
}

SEC("xdp.frags")
int bench_redirect(struct xdp_md *ctx)
{
	(void)ctx;
	/* The flags' low bits are the verdict on a miss: an empty slot drops. */
	return bpf_redirect_map(&tx_port, 0, XDP_DROP);
}

char _license[] SEC("license") = "Dual BSD/GPL";
