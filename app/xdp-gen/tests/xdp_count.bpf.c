/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * xdp-count's program, on the receiving veth: counts every frame, checks
 * the generator's (IPv4 header checksum, IPv4 and UDP lengths against the
 * frame's) and sums their sequence numbers per sending thread, so that a
 * test can tell "each of 0..n-1 once" from n frames of anything.  Then
 * drops or passes the frame, as configured.
 */

#include <linux/bpf.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "xdp_count.h"

const volatile __u32 verdict = XDP_DROP;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct count_stats);
} count_stats SEC(".maps");

static __always_inline __u16
get16(const void *p)
{
	return bpf_ntohs(*(const __be16 *)p);
}

SEC("xdp")
int xdp_count(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u32 len = data_end - data, key = 0, q = ctx->rx_queue_index;
	__u32 sum = 0, thread;
	struct count_stats *s;
	__u64 seq;

	s = bpf_map_lookup_elem(&count_stats, &key);
	if (!s)
		return verdict;
	s->frames++;
	s->bytes += len;
	if (q < COUNT_MAX_QUEUES)
		s->queue[q]++;

	if (data + GEN_MIN_FRAME > data_end ||
	    get16(data + 12) != 0x0800 ||
	    *(__u8 *)(data + GEN_OFF_IP) != 0x45 ||
	    *(__u8 *)(data + GEN_OFF_IP + 9) != 17 ||
	    bpf_ntohl(*(__be32 *)(data + GEN_OFF_MAGIC)) != GEN_MAGIC) {
		s->others++;
		return verdict;
	}
	s->ours++;

#pragma unroll
	for (int i = 0; i < 20; i += 2)
		sum += get16(data + GEN_OFF_IP + i);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	if (sum != 0xffff)
		s->bad_csum++;
	if (get16(data + GEN_OFF_IP + 2) != len - GEN_OFF_IP ||
	    get16(data + GEN_OFF_UDP + 4) != len - GEN_OFF_UDP)
		s->bad_len++;

	s->flow[get16(data + GEN_OFF_FLOW) % COUNT_MAX_FLOWS]++;
	thread = get16(data + GEN_OFF_THREAD);
	if (thread < GEN_MAX_THREADS) {
		seq = bpf_be64_to_cpu(*(__be64 *)(data + GEN_OFF_SEQ));
		s->thr_frames[thread]++;
		s->thr_seq_sum[thread] += seq;
		if (seq + 1 > s->thr_seq_end[thread])
			s->thr_seq_end[thread] = seq + 1;
	}
	return verdict;
}

char _license[] SEC("license") = "Dual BSD/GPL";
