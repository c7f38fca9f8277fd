/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The generator's frame, as both the XDP program and user space see it:
 * Ethernet, IPv4 without options, UDP, then a small header of ours that a
 * receiver can check, then a byte pattern up to the frame's end.
 *
 * Included by the BPF program (clang -target bpf) and by the C sources, so
 * it uses only <linux/types.h>.
 */

#ifndef GEN_FRAME_H
#define GEN_FRAME_H

#include <linux/types.h>

/* Offsets into the frame (no FCS: the kernel and the NIC add it). */
#define GEN_OFF_IP		14
#define GEN_OFF_IP_CSUM		(GEN_OFF_IP + 10)
#define GEN_OFF_IP_SADDR	(GEN_OFF_IP + 12)
#define GEN_OFF_UDP		34
#define GEN_OFF_UDP_SPORT	GEN_OFF_UDP
#define GEN_OFF_PAYLOAD		42

/*
 * Our header, big-endian, at GEN_OFF_PAYLOAD.  Offsets are given one by one
 * rather than as a struct so that each field sits at a naturally aligned
 * offset of the frame (the payload itself starts 2 bytes off a word).
 */
#define GEN_OFF_THREAD		42	/* __be16: sending thread, 0.. */
#define GEN_OFF_MAGIC		44	/* __be32: GEN_MAGIC */
#define GEN_OFF_SEQ		48	/* __be64: per thread, from 0 */
#define GEN_OFF_FLOW		56	/* __be16: flow, 0..flows-1 */
#define GEN_OFF_PATTERN		58	/* byte at offset i is (i & 0xff) to the end */

#define GEN_MAGIC		0x7847454eu	/* "xGEN" */

/* Ethernet minimum without FCS; also the smallest frame our header fits. */
#define GEN_MIN_FRAME		60

/* Threads are told apart by GEN_OFF_THREAD and each has a counter slot. */
#define GEN_MAX_THREADS		64

/*
 * Set by user space in the program's .rodata before load: the verifier then
 * removes the flow code when flows is 1.
 */
struct gen_cfg {
	__u32 flows;		/* 1: every frame keeps the template's addresses */
	__u32 src_ip;		/* host order: flow f sends from src_ip + f */
	__u32 ip_sum;		/* one's complement sum of the IPv4 header's words
				 * without the source address and the checksum, unfolded */
	__u16 src_port;		/* host order: flow f sends from src_port + f */
	__u16 dry_run;		/* 1: XDP_DROP instead of XDP_TX, to time the generator alone */
};

/* One slot per thread, a cache line each so that threads do not share one. */
struct gen_counter {
	__u64 seq;		/* frames this thread's program runs have built */
	__u32 flow;		/* the next frame's flow */
	__u32 pad;
	__u64 pad2[6];
};

#endif /* GEN_FRAME_H */
