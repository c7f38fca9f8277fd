/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The smallest XDP program, for vm-text-poke.sh: attaching and detaching
 * it changes the BPF dispatcher; dropping makes the flood call through the
 * dispatcher as often as it can (frames passed to the stack cost more).
 */

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_drop(struct xdp_md *ctx)
{
	return XDP_DROP;
}

char _license[] SEC("license") = "Dual BSD/GPL";
