/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/* What xdp-count's XDP program counts, per CPU; shared with its loader. */

#ifndef XDP_COUNT_H
#define XDP_COUNT_H

#include <linux/types.h>

#include "../gen_frame.h"

#define COUNT_MAX_QUEUES	16
#define COUNT_MAX_FLOWS		64	/* flows are counted modulo this */

struct count_stats {
	__u64 frames;			/* every frame the program saw */
	__u64 bytes;
	__u64 ours;			/* IPv4 + UDP + GEN_MAGIC */
	__u64 others;			/* anything else (stray frames) */
	__u64 bad_csum;			/* ours with a wrong IPv4 header checksum */
	__u64 bad_len;			/* ours whose IPv4 or UDP length disagrees with the frame */
	__u64 queue[COUNT_MAX_QUEUES];	/* frames by receive queue */
	__u64 flow[COUNT_MAX_FLOWS];	/* ours by flow */
	__u64 thr_frames[GEN_MAX_THREADS];	/* ours by sending thread */
	__u64 thr_seq_sum[GEN_MAX_THREADS];	/* sum of their sequence numbers */
	__u64 thr_seq_end[GEN_MAX_THREADS];	/* highest sequence number + 1 */
};

#endif /* XDP_COUNT_H */
