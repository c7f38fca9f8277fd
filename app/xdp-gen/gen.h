/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/* Private declarations of afxdp-gen, shared by its C files. */

#ifndef GEN_H
#define GEN_H

#include <net/if.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gen_frame.h"

#define ETH_ALEN_ 6

/* ---- gen_frame.c: the frame template (pure, unit-tested) ---- */

struct gen_frame_spec {
	uint8_t dst_mac[ETH_ALEN_];
	uint8_t src_mac[ETH_ALEN_];
	uint32_t src_ip;	/* host order */
	uint32_t dst_ip;	/* host order */
	uint16_t src_port;
	uint16_t dst_port;
	unsigned int size;	/* the whole frame without FCS, >= GEN_MIN_FRAME */
	unsigned int flows;	/* >= 1 */
};

/* Writes the template for thread `thread`: sequence 0, flow 0. */
void gen_frame_build(uint8_t *frame, const struct gen_frame_spec *spec, unsigned int thread);

/* The program's configuration for frames built from spec. */
void gen_frame_cfg(struct gen_cfg *cfg, const struct gen_frame_spec *spec);

/*
 * What the XDP program does to a frame, in C: used by the AF_PACKET path
 * and by the unit test that checks the two agree on the checksum.
 */
void gen_frame_stamp(uint8_t *frame, const struct gen_cfg *cfg, uint64_t seq, uint32_t flow);

/* The IPv4 header checksum of the 20 bytes at ip, as stored (network order). */
uint16_t gen_ip_checksum(const uint8_t *ip);

/* ---- gen_iface.c: facts about the interface and its veth peer ---- */

struct gen_iface {
	char name[IF_NAMESIZE];
	int ifindex;
	unsigned int mtu;
	unsigned int tx_queues;		/* transmit queues: the AF_XDP method binds one per thread */
	uint8_t mac[ETH_ALEN_];
	char kind[16];			/* rtnetlink link kind: "veth", ... ("" if none) */

	bool has_peer;			/* a veth whose peer was found */
	char peer_name[IF_NAMESIZE];
	int peer_ifindex;		/* in the peer's namespace */
	int peer_netnsid;		/* -1: our namespace */
	uint8_t peer_mac[ETH_ALEN_];
	unsigned int peer_mtu;
	unsigned int peer_rx_queues;
	bool peer_xdp;			/* an XDP program is attached to the peer */

	/* ethtool statistics of frames redirected into the peer's rings */
	unsigned int n_stats;		/* 0: not available (not a veth) */
	unsigned int n_xmit, n_xmit_err;
	unsigned int *xmit_idx;		/* tx_queue_<i>_xdp_xmit */
	unsigned int *xmit_err_idx;	/* tx_queue_<i>_xdp_xmit_errors */
};

/* 0, or a negative errno with a message in err. */
int gen_iface_open(struct gen_iface *ifc, const char *name, char *err, size_t errlen);
void gen_iface_close(struct gen_iface *ifc);

/*
 * Frames XDP-redirected into the veth peer's receive rings since the veth
 * was created: taken into a ring, and dropped because the ring was full
 * (or the frame too long for the peer).  -ENOTSUP when the device has no
 * such counters.
 */
int gen_iface_xdp_xmit(const struct gen_iface *ifc, uint64_t *xmit, uint64_t *dropped);

/*
 * The interface's own transmit counters (rtnetlink's IFLA_STATS64).  On a
 * veth, tx_packets counts every frame its peer took, into its NAPI ring or
 * its stack, and tx_dropped those the veth dropped (a full peer ring).
 */
int gen_iface_tx_stats(const struct gen_iface *ifc, uint64_t *packets, uint64_t *dropped);

/* ---- gen_live.c: BPF_PROG_RUN with BPF_F_TEST_XDP_LIVE_FRAMES ---- */

struct gen_live;

/*
 * Loads the program with cfg; then checks that the kernel runs live frames
 * (with a program that drops, so that nothing is sent).  0, or a negative
 * errno with the reason in why.
 */
int gen_live_open(struct gen_live **lp, const struct gen_cfg *cfg, char *why, size_t whylen);
void gen_live_close(struct gen_live *l);

/*
 * Runs the program on `repeat` copies of frame, out of ifindex.  0 or
 * -errno.  On success, *ns_per_frame is the kernel's own timing: the time
 * on the CPU per frame, rounded down, not counting the time the thread was
 * scheduled out (unlike a wall clock on a shared machine).
 */
int gen_live_run(struct gen_live *l, int ifindex, const uint8_t *frame, unsigned int size,
		 uint32_t repeat, uint32_t batch, uint32_t *ns_per_frame);

/* Frames the program has built for one thread, and for threads 0..n-1 together. */
int gen_live_thread_built(struct gen_live *l, unsigned int thread, uint64_t *built);
int gen_live_built(struct gen_live *l, unsigned int n, uint64_t *total);

/* No frame taken for this long, every one refused: the send fails (-ENOLINK). */
#define GEN_STALL_NS	2000000000ull

/* ---- gen_packet.c: the AF_PACKET fallback ---- */

#define GEN_PACKET_BATCH 64

struct gen_packet {
	int fd;
	unsigned int size;
	const struct gen_cfg *cfg;
	uint8_t *frames;		/* GEN_PACKET_BATCH copies of the template */
	uint64_t seq;
	uint32_t flow;
	uint64_t retries;		/* sendmmsg calls that hit a full queue */
};

int gen_packet_open(struct gen_packet *p, int ifindex, const uint8_t *frame, unsigned int size,
		    const struct gen_cfg *cfg, char *err, size_t errlen);
void gen_packet_close(struct gen_packet *p);

/*
 * Sends n frames, each one accepted by the device: a full queue (ENOBUFS)
 * is retried.  *sent counts the frames sent, fewer than n if *stop became
 * true.  0, or a negative errno on any other error: -ENOLINK when every
 * call was refused for GEN_STALL_NS (a veth whose peer is down).
 */
int gen_packet_send(struct gen_packet *p, uint64_t n, const atomic_int *stop, uint64_t *sent);

/* ---- gen_xsk.c: the AF_XDP method (copy mode) ---- */

struct gen_xsk_ring {
	uint32_t *producer, *consumer;
	void *desc;			/* struct xdp_desc (Tx) or uint64_t addresses */
	uint32_t size, mask;
	void *map;
	size_t map_len;
};

struct gen_xsk {
	int fd;
	unsigned int queue;		/* the interface's transmit queue it is bound to */
	unsigned int size;		/* frame bytes */
	unsigned int batch;		/* frames put into the Tx ring per sendto() */
	unsigned int budget;		/* frames the kernel sends per sendto() */
	const struct gen_cfg *cfg;
	uint8_t *umem;
	size_t umem_len;
	unsigned int frame_size, nframes;
	struct gen_xsk_ring tx, cq, fq;
	uint64_t *free_addrs;		/* UMEM slots not in flight */
	unsigned int nfree;
	uint32_t prod, cq_cons;
	uint64_t produced, completed;	/* frames, since the socket was opened */
	uint64_t seq;			/* the next frame's sequence number */
	uint32_t flow;			/* and its flow */
	atomic_uint_fast64_t built;	/* = completed, for the main thread */
	atomic_uint_fast64_t dropped;	/* completed but dropped by the driver (EBUSY) */
	uint64_t kicks, again, waits;	/* sendto() calls; of those, EAGAIN; rounds with no slot */
};

/*
 * Opens, maps and binds the socket to queue `queue` of ifindex in copy mode,
 * with a UMEM of its own holding copies of frame.  0, or a negative errno
 * with the reason in err.
 */
int gen_xsk_open(struct gen_xsk *x, int ifindex, unsigned int queue, const uint8_t *frame,
		 unsigned int size, const struct gen_cfg *cfg, unsigned int batch, char *err,
		 size_t errlen);
void gen_xsk_close(struct gen_xsk *x);

/*
 * Sends until n more frames are taken by the driver (drops are sent again),
 * or *stop becomes true.  *sent: the frames taken.  0, or a negative errno:
 * -ENOLINK when the driver took no frame for GEN_STALL_NS while they were
 * dropped or given back (a veth whose peer is down).
 */
int gen_xsk_send(struct gen_xsk *x, uint64_t n, const atomic_int *stop, uint64_t *sent);

/* Frames taken by the driver since the socket was opened (any thread may ask). */
uint64_t gen_xsk_taken(const struct gen_xsk *x);

/*
 * Takes the completions that came since, into built and taken: for the
 * thread that sends, or any other once it has stopped.
 */
void gen_xsk_reap(struct gen_xsk *x);

#endif /* GEN_H */
