/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The generator's XDP program, run by BPF_PROG_RUN in live-frames mode
 * (BPF_F_TEST_XDP_LIVE_FRAMES) on frames the kernel copies once from the
 * template user space passes in.  Pages are recycled without being copied
 * again, so the program rewrites every field that varies, on every run:
 * the sequence number and, with several flows, the flow, the UDP source
 * port, the IPv4 source address and the IPv4 header checksum.  It then
 * returns XDP_TX, which the test run turns into a redirect out of the
 * device it is bound to (xdp_md.ingress_ifindex); on a veth, into the
 * peer's receive ring.
 *
 * The sending thread's index is in the template (GEN_OFF_THREAD); each
 * thread has its own counter slot, so no atomic operation is needed.
 */

#include <linux/bpf.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "../gen_frame.h"

const volatile struct gen_cfg cfg = { .flows = 1 };

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, GEN_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct gen_counter);
} gen_counters SEC(".maps");

SEC("xdp")
int xdp_gen(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct gen_counter *c;
	__u32 thread;
	__u64 seq;

	if (data + GEN_MIN_FRAME > data_end)
		return XDP_ABORTED;
	thread = bpf_ntohs(*(__be16 *)(data + GEN_OFF_THREAD));
	c = bpf_map_lookup_elem(&gen_counters, &thread);
	if (!c)
		return XDP_ABORTED;

	seq = c->seq++;
	*(__be64 *)(data + GEN_OFF_SEQ) = bpf_cpu_to_be64(seq);

	if (cfg.flows > 1) {
		__u32 flow = c->flow;
		__u32 saddr = cfg.src_ip + flow;
		__u32 sum = cfg.ip_sum + (saddr >> 16) + (saddr & 0xffff);

		c->flow = flow + 1 == cfg.flows ? 0 : flow + 1;
		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		*(__be16 *)(data + GEN_OFF_FLOW) = bpf_htons(flow);
		*(__be16 *)(data + GEN_OFF_UDP_SPORT) = bpf_htons(cfg.src_port + flow);
		*(__be32 *)(data + GEN_OFF_IP_SADDR) = bpf_htonl(saddr);
		*(__be16 *)(data + GEN_OFF_IP_CSUM) = bpf_htons(~sum & 0xffff);
	}
	return cfg.dry_run ? XDP_DROP : XDP_TX;
}

/* A program that sends nothing: probes whether live frames are supported. */
SEC("xdp")
int xdp_gen_probe(struct xdp_md *ctx)
{
	return XDP_DROP;
}

char _license[] SEC("license") = "Dual BSD/GPL";
