/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * Transmit on rings in plain memory: mbufs of the UMEM's pool go out in
 * place; foreign, chained and indirect mbufs are copied into the UMEM; too
 * long frames (longer than a chunk, or than a copy holds) are dropped and
 * counted; a full ring sends part of the burst;
 * completions free the mbufs; wakeups only when the kernel asks; at close
 * what the kernel has not completed is held, never more than a ring's worth.
 * Checksum offloads: which requests are refused, what tx_pkt_prepare
 * seeds, the checksums the driver computes, and the Tx metadata put in
 * front of a frame whose L4 checksum is left to the kernel.
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "af_xdp.h"
#include "af_xdp_csum.h"
#include "af_xdp_iface.h"
#include "af_xdp_tx.h"
#include "ring_sim.h"
#include "unit_test.h"

#define POOL_SIZE 2048

/*
 * A socket descriptor that stands for copy mode's kernel behind a full
 * device queue: each sendto() on it takes the next Tx descriptor, drops it
 * and completes it, and says EBUSY (xsk_generic_xmit()'s NET_XMIT_DROP).
 * sendto() is wrapped at link time (tests/unit/meson.build); any other
 * descriptor gets the real call.
 */
#define DROPPING_DEVICE_FD 1000
static struct sim_ring *dropping_tx, *dropping_comp;

ssize_t __real_sendto(int fd, const void *buf, size_t len, int flags,
		      const struct sockaddr *to, socklen_t tolen);
ssize_t __wrap_sendto(int fd, const void *buf, size_t len, int flags,
		      const struct sockaddr *to, socklen_t tolen);

ssize_t
__wrap_sendto(int fd, const void *buf, size_t len, int flags,
	      const struct sockaddr *to, socklen_t tolen)
{
	if (fd != DROPPING_DEVICE_FD)
		return __real_sendto(fd, buf, len, flags, to, tolen);
	sim_kernel_complete_one(dropping_tx, dropping_comp, NULL);
	errno = EBUSY;
	return -1;
}

struct tx_env {
	struct rte_mempool *umem_pool, *other_pool;
	struct af_xdp_umem_layout layout;
	struct sim_ring tx, comp;
	struct af_xdp_tx_queue txq;
};

static void
env_init(struct tx_env *e, uint32_t ring_size)
{
	static unsigned int n;
	char name[32], err[256];

	memset(e, 0, sizeof(*e));
	snprintf(name, sizeof(name), "tx_umem_%u", n);
	e->umem_pool = rte_pktmbuf_pool_create(name, POOL_SIZE, 0, 0,
					       RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	snprintf(name, sizeof(name), "tx_other_%u", n++);
	e->other_pool = rte_pktmbuf_pool_create(name, POOL_SIZE, 0, 0,
						RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	CHECK(e->umem_pool != NULL && e->other_pool != NULL, "mempools");
	CHECK(af_xdp_umem_layout(e->umem_pool, &e->layout, err, sizeof(err)) == 0, "%s", err);
	sim_ring_init(&e->tx, ring_size, sizeof(struct xdp_desc), true);
	sim_ring_init(&e->comp, ring_size, sizeof(uint64_t), false);
	af_xdp_txq_bind(&e->txq, &e->tx.view, &e->comp.view, &e->layout, 0, false, e->umem_pool,
			-1);
}

/* The same, the UMEM registered with Tx metadata, the socket in zero-copy mode or not. */
static void
env_init_meta(struct tx_env *e, bool zero_copy)
{
	env_init(e, 256);
	af_xdp_txq_bind(&e->txq, &e->tx.view, &e->comp.view, &e->layout, AF_XDP_TX_META_LEN,
			zero_copy, e->umem_pool, -1);
}

static void
env_free(struct tx_env *e)
{
	sim_ring_free(&e->tx);
	sim_ring_free(&e->comp);
	rte_mempool_free(e->umem_pool);
	rte_mempool_free(e->other_pool);
}

/* The kernel sends what is left, the completions are drained: every mbuf back, then freed. */
static void
env_finish(struct tx_env *e)
{
	sim_kernel_transmit(&e->tx, &e->comp, NULL, 0);
	af_xdp_txq_drain(&e->txq);
	CHECK_EQ(e->txq.outstanding, 0);
	CHECK_EQ(rte_mempool_avail_count(e->umem_pool), POOL_SIZE);
	env_free(e);
}

static struct rte_mbuf *
frame(struct rte_mempool *mp, uint32_t len, uint8_t seed)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t *p = m == NULL ? NULL : (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	uint32_t i;

	if (p == NULL) {
		fprintf(stderr, "cannot build a frame of %u bytes\n", len);
		exit(1);
	}
	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i);
	return m;
}

/* The bytes a Tx descriptor points at, in the UMEM. */
static const uint8_t *
desc_data(const struct tx_env *e, const struct xdp_desc *d)
{
	return (const uint8_t *)(e->layout.area + (d->addr & XSK_UNALIGNED_BUF_ADDR_MASK) +
				 (d->addr >> XSK_UNALIGNED_BUF_OFFSET_SHIFT));
}

static bool
same_bytes(const uint8_t *p, uint32_t len, uint8_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (uint8_t)(seed + i))
			return false;
	return true;
}

static void
test_in_place(void)
{
	struct rte_mbuf *bufs[64];
	struct xdp_desc sent[64];
	struct tx_env e;
	unsigned int i;

	env_init(&e, 256);
	for (i = 0; i < 64; i++)
		bufs[i] = frame(e.umem_pool, 60 + i, (uint8_t)i);
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs, 64), 64);
	CHECK_EQ(e.tx.producer - SIM_START_INDEX, 64);
	CHECK_EQ(sim_kernel_transmit(&e.tx, &e.comp, sent, 64), 64);
	for (i = 0; i < 64; i++) {
		/* The descriptor points into the mbuf itself: no copy. */
		CHECK(desc_data(&e, &sent[i]) == rte_pktmbuf_mtod(bufs[i], const uint8_t *),
		      "frame %u not sent in place", i);
		CHECK_EQ(sent[i].len, 60 + i);
		CHECK(same_bytes(desc_data(&e, &sent[i]), sent[i].len, (uint8_t)i), "bytes %u", i);
	}
	CHECK_EQ(e.txq.stats.packets, 64);
	CHECK_EQ(e.txq.stats.copies, 0);
	CHECK_EQ(e.txq.outstanding, 64);
	/* The kernel is done with them: the next burst gives them back. */
	CHECK_EQ(rte_mempool_avail_count(e.umem_pool), POOL_SIZE - 64);
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs, 0), 0);
	CHECK_EQ(rte_mempool_avail_count(e.umem_pool), POOL_SIZE);
	CHECK_EQ(e.txq.outstanding, 0);
	CHECK_EQ(e.txq.stats.wakeups, 0);
	env_free(&e);
}

static void
test_copies(void)
{
	struct rte_mbuf *bufs[3], *seg2, *direct;
	struct xdp_desc sent[3];
	struct tx_env e;

	env_init(&e, 256);
	/* Another pool: the kernel cannot reach it. */
	bufs[0] = frame(e.other_pool, 100, 1);
	/* A chain of two segments. */
	bufs[1] = frame(e.umem_pool, 70, 2);
	seg2 = frame(e.umem_pool, 50, 2 + 70);
	CHECK(rte_pktmbuf_chain(bufs[1], seg2) == 0, "chain");
	/* An indirect mbuf, attached to a direct one of the UMEM's pool. */
	direct = frame(e.umem_pool, 80, 3);
	bufs[2] = rte_pktmbuf_clone(direct, e.umem_pool);
	CHECK(bufs[2] != NULL && RTE_MBUF_CLONED(bufs[2]), "clone");

	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs, 3), 3);
	CHECK_EQ(e.txq.stats.copies, 3);
	/* The foreign original is freed at once. */
	CHECK_EQ(rte_mempool_avail_count(e.other_pool), POOL_SIZE);
	CHECK_EQ(sim_kernel_transmit(&e.tx, &e.comp, sent, 3), 3);
	CHECK_EQ(sent[0].len, 100);
	CHECK(same_bytes(desc_data(&e, &sent[0]), 100, 1), "foreign bytes");
	CHECK_EQ(sent[1].len, 120);
	CHECK(same_bytes(desc_data(&e, &sent[1]), 120, 2), "chain bytes");
	CHECK_EQ(sent[2].len, 80);
	CHECK(same_bytes(desc_data(&e, &sent[2]), 80, 3), "indirect bytes");
	rte_pktmbuf_free(direct);
	af_xdp_txq_drain(&e.txq);
	CHECK_EQ(rte_mempool_avail_count(e.umem_pool), POOL_SIZE);
	env_free(&e);
}

/* A frame of len bytes in one mbuf of a pool with a data room of 16 KiB. */
static struct rte_mbuf *
big_frame(struct rte_mempool **mp, uint32_t len, uint8_t seed)
{
	if (*mp == NULL)
		*mp = rte_pktmbuf_pool_create("tx_big", 64, 0, 0, 16384 + RTE_PKTMBUF_HEADROOM,
					      SOCKET_ID_ANY);
	CHECK(*mp != NULL, "big pool");
	return frame(*mp, len, seed);
}

/* Without multi-buffer, a frame must fit one UMEM mbuf: a longer one is dropped, counted. */
static void
test_too_long(void)
{
	struct rte_mempool *big = NULL;
	struct rte_mbuf *bufs[2];
	struct tx_env e;

	env_init(&e, 256);
	bufs[0] = frame(e.umem_pool, 60, 0);
	bufs[1] = big_frame(&big, e.layout.chunk_size + 1, 0);
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs, 2), 2);
	CHECK_EQ(e.txq.stats.dropped, 1);
	CHECK_EQ(e.txq.stats.packets, 1);
	CHECK_EQ(e.tx.producer - SIM_START_INDEX, 1);
	CHECK_EQ(rte_mempool_avail_count(big), 64);
	/* Longer than the MTU allows: dropped too, even if it fits a chunk. */
	af_xdp_txq_set_frame_limits(&e.txq, 1518, 1);
	bufs[0] = frame(e.umem_pool, 1519, 0);
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs, 1), 1);
	CHECK_EQ(e.txq.stats.dropped, 2);
	CHECK_EQ(e.tx.producer - SIM_START_INDEX, 1);
	env_free(&e);
	rte_mempool_free(big);
}

/* The descriptors of one frame: n of them from the kernel's side of the ring. */
static void
check_frame_descs(struct tx_env *e, const struct xdp_desc *d, uint32_t n, uint32_t len,
		  uint8_t seed)
{
	uint32_t i, done = 0;

	for (i = 0; i < n; i++) {
		CHECK_EQ(d[i].options, i + 1 < n ? XDP_PKT_CONTD : 0);
		CHECK(same_bytes(desc_data(e, &d[i]), d[i].len, (uint8_t)(seed + done)),
		      "segment %u bytes", i);
		done += d[i].len;
	}
	CHECK_EQ(done, len);
}

/* Multi-buffer: a chain of UMEM mbufs goes in place, a descriptor a segment. */
static void
test_chain_in_place(void)
{
	static const uint16_t segs[] = { 1000, 2000, 500 };
	struct rte_mbuf *head = NULL, *seg[3];
	struct xdp_desc sent[8];
	uint32_t off = 0, i;
	struct tx_env e;

	env_init(&e, 256);
	af_xdp_txq_set_frame_limits(&e.txq, 9018, 18);
	for (i = 0; i < RTE_DIM(segs); i++) {
		seg[i] = frame(e.umem_pool, segs[i], (uint8_t)off);
		off += segs[i];
		if (head == NULL)
			head = seg[i];
		else
			CHECK(rte_pktmbuf_chain(head, seg[i]) == 0, "chain");
	}
	CHECK_EQ(af_xdp_tx_burst(&e.txq, &head, 1), 1);
	CHECK_EQ(e.txq.stats.packets, 1);
	CHECK_EQ(e.txq.stats.bytes, off);
	CHECK_EQ(e.txq.stats.copies, 0);
	CHECK_EQ(e.txq.stats.multi_buffer, 1);
	CHECK_EQ(e.txq.outstanding, 3);
	CHECK_EQ(sim_kernel_transmit(&e.tx, &e.comp, sent, RTE_DIM(sent)), 3);
	for (i = 0; i < 3; i++)
		CHECK(desc_data(&e, &sent[i]) == rte_pktmbuf_mtod(seg[i], const uint8_t *),
		      "segment %u not in place", i);
	check_frame_descs(&e, sent, 3, off, 0);
	/* Each segment is freed with its own completion, none twice. */
	af_xdp_txq_drain(&e.txq);
	CHECK_EQ(e.txq.outstanding, 0);
	CHECK_EQ(rte_mempool_avail_count(e.umem_pool), POOL_SIZE);
	env_free(&e);
}

/*
 * Multi-buffer: what cannot go in place is copied into as many UMEM mbufs
 * as it takes; a frame of more segments than the kernel takes is copied
 * into fewer if it can be, dropped and counted if not.
 */
static void
test_chain_copies(void)
{
	struct rte_mempool *big = NULL;
	const uint32_t room = RTE_MBUF_DEFAULT_BUF_SIZE - RTE_PKTMBUF_HEADROOM;
	struct rte_mbuf *bufs[3], *m;
	struct xdp_desc sent[64];
	struct tx_env e;
	uint32_t i, n;

	env_init(&e, 256);
	af_xdp_txq_set_frame_limits(&e.txq, 65535, 18);
	/* One foreign mbuf of 9000 bytes: 5 UMEM mbufs. */
	bufs[0] = big_frame(&big, 9000, 1);
	/* 20 UMEM segments of 100 bytes: copied, into one. */
	bufs[1] = frame(e.umem_pool, 100, 2);
	for (i = 1; i < 20; i++)
		CHECK(rte_pktmbuf_chain(bufs[1], frame(e.umem_pool, 100, (uint8_t)(2 + 100 * i)))
		      == 0, "chain");
	/* 20 segments of 2000 bytes: more than 18 UMEM mbufs even copied. */
	bufs[2] = frame(e.umem_pool, 2000, 3);
	for (i = 1; i < 20; i++)
		CHECK(rte_pktmbuf_chain(bufs[2], frame(e.umem_pool, 2000, 3)) == 0, "chain");
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs, 3), 3);
	CHECK_EQ(e.txq.stats.packets, 2);
	CHECK_EQ(e.txq.stats.copies, 2);
	CHECK_EQ(e.txq.stats.too_many_segs, 1);
	CHECK_EQ(e.txq.stats.multi_buffer, 1);
	n = sim_kernel_transmit(&e.tx, &e.comp, sent, RTE_DIM(sent));
	CHECK_EQ(n, (9000 + room - 1) / room + 1);
	check_frame_descs(&e, sent, n - 1, 9000, 1);
	check_frame_descs(&e, sent + n - 1, 1, 2000, 2);
	af_xdp_txq_drain(&e.txq);
	/* Everything back: originals freed at once, copies on completion, the dropped one. */
	CHECK_EQ(rte_mempool_avail_count(e.umem_pool), POOL_SIZE);
	CHECK_EQ(rte_mempool_avail_count(big), 64);
	/* A chain shared with someone else (refcnt 2) is copied, not unlinked. */
	m = frame(e.umem_pool, 300, 4);
	CHECK(rte_pktmbuf_chain(m, frame(e.umem_pool, 300, (uint8_t)(4 + 300))) == 0, "chain");
	rte_pktmbuf_refcnt_update(m, 1);
	CHECK_EQ(af_xdp_tx_burst(&e.txq, &m, 1), 1);
	CHECK_EQ(e.txq.stats.copies, 3);
	CHECK_EQ(m->nb_segs, 2);
	CHECK(m->next != NULL, "the shared chain was unlinked");
	rte_pktmbuf_free(m);
	env_finish(&e);
	rte_mempool_free(big);
}

/*
 * A socket bound without multi-buffer (the frame policy binds one wherever
 * the MTU's frames fit a chunk, Tx multi-segment offload or not): a chain
 * of the UMEM's own mbufs, which multi-buffer would send in place, is
 * copied into one UMEM mbuf when it fits one, its bytes in order; one
 * within the MTU but longer than a copy holds is dropped and counted,
 * nothing of it queued.
 */
static void
test_chain_single_buffer(void)
{
	const uint32_t room = RTE_MBUF_DEFAULT_BUF_SIZE - RTE_PKTMBUF_HEADROOM;
	struct rte_mbuf *bufs[2];
	struct xdp_desc sent[4];
	struct tx_env e;
	unsigned int i;

	env_init(&e, 256);
	af_xdp_txq_set_frame_limits(&e.txq, 9018, 1);
	/* 1514 bytes in 3 UMEM segments; then 3 x 1000, over a copy's room. */
	bufs[0] = frame(e.umem_pool, 1000, 7);
	CHECK(rte_pktmbuf_chain(bufs[0], frame(e.umem_pool, 500, (uint8_t)(7 + 1000))) == 0, "chain");
	CHECK(rte_pktmbuf_chain(bufs[0], frame(e.umem_pool, 14, (uint8_t)(7 + 1500))) == 0, "chain");
	bufs[1] = frame(e.umem_pool, 1000, 9);
	for (i = 1; i < 3; i++)
		CHECK(rte_pktmbuf_chain(bufs[1], frame(e.umem_pool, 1000, (uint8_t)(9 + 1000 * i)))
		      == 0, "chain");
	CHECK(bufs[1]->pkt_len > room, "the second chain is longer than a copy holds");
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs, 2), 2);
	CHECK_EQ(e.txq.stats.packets, 1);
	CHECK_EQ(e.txq.stats.bytes, 1514);
	CHECK_EQ(e.txq.stats.copies, 1);
	CHECK_EQ(e.txq.stats.multi_buffer, 0);
	CHECK_EQ(e.txq.stats.dropped, 1);
	CHECK_EQ(e.txq.stats.too_many_segs, 0);
	CHECK_EQ(sim_kernel_transmit(&e.tx, &e.comp, sent, RTE_DIM(sent)), 1);
	check_frame_descs(&e, sent, 1, 1514, 7);
	af_xdp_txq_drain(&e.txq);
	CHECK_EQ(e.txq.outstanding, 0);
	CHECK_EQ(rte_mempool_avail_count(e.umem_pool), POOL_SIZE);
	env_free(&e);
}

/* The ring's space is counted in descriptors: a frame goes whole or not at all. */
static void
test_ring_space_in_descriptors(void)
{
	struct rte_mbuf *bufs[60];
	struct tx_env e;
	unsigned int i;

	env_init(&e, 256);
	af_xdp_txq_set_frame_limits(&e.txq, 65535, 18);
	/* Frames of 5 descriptors: 51 fill 255 of the 256 slots. */
	for (i = 0; i < RTE_DIM(bufs); i++) {
		unsigned int k;

		bufs[i] = frame(e.umem_pool, 100, 0);
		for (k = 1; k < 5; k++)
			CHECK(rte_pktmbuf_chain(bufs[i], frame(e.umem_pool, 100, 0)) == 0, "chain");
	}
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs, RTE_DIM(bufs)), 51);
	CHECK_EQ(e.tx.producer - SIM_START_INDEX, 255);
	CHECK_EQ(e.txq.outstanding, 255);
	/* The caller kept the rest, whole. */
	CHECK_EQ(bufs[51]->nb_segs, 5);
	sim_kernel_transmit(&e.tx, &e.comp, NULL, 0);
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs + 51, RTE_DIM(bufs) - 51), RTE_DIM(bufs) - 51);
	sim_kernel_transmit(&e.tx, &e.comp, NULL, 0);
	af_xdp_txq_drain(&e.txq);
	CHECK_EQ(rte_mempool_avail_count(e.umem_pool), POOL_SIZE);
	/* Chains and single mbufs mixed in one burst, with room for all. */
	for (i = 0; i < 16; i++) {
		bufs[i] = frame(e.umem_pool, 100, 0);
		if (i % 2 == 0)
			CHECK(rte_pktmbuf_chain(bufs[i], frame(e.umem_pool, 100, 0)) == 0, "chain");
	}
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs, 16), 16);
	CHECK_EQ(e.tx.producer - e.tx.consumer, 24);
	env_finish(&e);
}

/* A chain is copied into one UMEM mbuf: it must fit there from the headroom on. */
static void
test_chain_longer_than_a_copy(void)
{
	uint32_t room = RTE_MBUF_DEFAULT_BUF_SIZE - RTE_PKTMBUF_HEADROOM;
	struct rte_mbuf *bufs[2];
	struct xdp_desc sent[2];
	struct tx_env e;
	unsigned int i;

	env_init(&e, 256);
	for (i = 0; i < 2; i++) {
		/* room + 52 bytes (within a chunk), then exactly room */
		bufs[i] = frame(e.other_pool, 1500, 1);
		CHECK(rte_pktmbuf_chain(bufs[i], frame(e.other_pool, room - 1500 + (i == 0 ? 52 : 0),
						      (uint8_t)(1 + 1500))) == 0, "chain");
	}
	CHECK(bufs[0]->pkt_len <= e.layout.chunk_size, "the long chain fits a chunk");
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs, 2), 2);
	CHECK_EQ(e.txq.stats.dropped, 1);
	CHECK_EQ(e.txq.stats.copies, 1);
	CHECK_EQ(sim_kernel_transmit(&e.tx, &e.comp, sent, 2), 1);
	CHECK_EQ(sent[0].len, room);
	CHECK(same_bytes(desc_data(&e, &sent[0]), room, 1), "the copied chain's bytes");
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs, 0), 0);
	CHECK_EQ(rte_mempool_avail_count(e.umem_pool), POOL_SIZE);
	CHECK_EQ(rte_mempool_avail_count(e.other_pool), POOL_SIZE);
	env_free(&e);
}

static void
test_ring_full_and_wakeup(void)
{
	struct rte_mbuf *bufs[300];
	struct tx_env e;
	unsigned int i;

	env_init(&e, 256);
	for (i = 0; i < 300; i++)
		bufs[i] = frame(e.umem_pool, 64, 0);
	/* 256 fit; the caller keeps the other 44. */
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs, 300), 256);
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs + 256, 44), 0);
	CHECK_EQ(e.txq.stats.wakeups, 0);
	/* The kernel asks for a kick: the burst makes it. */
	e.tx.flags = XDP_RING_NEED_WAKEUP;
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs + 256, 44), 0);
	CHECK(e.txq.stats.wakeups >= 1, "no wakeup");
	/* Once the kernel sent and completed, room again. */
	sim_kernel_transmit(&e.tx, &e.comp, NULL, 0);
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs + 256, 44), 44);
	env_finish(&e);
}

/*
 * A kick the kernel refuses leaves the frames in the Tx ring: counted, as
 * EAGAIN/EBUSY (kick_busy) or another failure (kick_errors), and as a
 * stall while descriptors wait in the ring for the next burst.  A socket
 * of a full AF_UNIX datagram pair stands for the kernel saying EAGAIN.
 */
static void
test_kick_failures(void)
{
	struct rte_mbuf *bufs[4];
	struct tx_env e;
	unsigned int i;
	int sv[2];

	CHECK(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, sv) == 0, "socketpair");
	while (send(sv[0], "x", 1, MSG_DONTWAIT) == 1)
		;
	CHECK(errno == EAGAIN, "a full datagram socket says EAGAIN, not %s", strerror(errno));
	env_init(&e, 256);
	e.tx.flags = XDP_RING_NEED_WAKEUP;
	for (i = 0; i < 4; i++)
		bufs[i] = frame(e.umem_pool, 64, 0);

	/* EAGAIN and no completion to drain: the frame waits. */
	e.txq.fd = sv[0];
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs, 1), 1);
	CHECK_EQ(e.txq.stats.kick_busy, 1);
	CHECK_EQ(e.txq.stats.kick_errors, 0);
	CHECK_EQ(e.txq.stats.kick_stalls, 1);
	CHECK_EQ(af_xdp_ring_pending(&e.txq.tx), 1);

	/* Another failure (no socket at all). */
	e.txq.fd = -1;
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs + 1, 1), 1);
	CHECK_EQ(e.txq.stats.kick_busy, 1);
	CHECK_EQ(e.txq.stats.kick_errors, 1);
	CHECK_EQ(e.txq.stats.kick_stalls, 2);

	/*
	 * EBUSY: the device dropped (and completed) the frame it was given.
	 * One kick, not one per frame waiting: each would drop the next.
	 */
	dropping_tx = &e.tx;
	dropping_comp = &e.comp;
	sim_kernel_transmit(&e.tx, &e.comp, NULL, 0);
	af_xdp_txq_drain(&e.txq);
	e.txq.fd = DROPPING_DEVICE_FD;
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs + 2, 2), 2);
	CHECK_EQ(e.txq.stats.kick_busy, 2);
	CHECK_EQ(e.txq.stats.kick_stalls, 3);
	CHECK_EQ(af_xdp_ring_pending(&e.txq.tx), 1);
	e.txq.fd = -1;
	bufs[2] = frame(e.umem_pool, 64, 0);
	bufs[3] = frame(e.umem_pool, 64, 0);

	/* The kernel took them: nothing waits, no stall. */
	sim_kernel_transmit(&e.tx, &e.comp, NULL, 0);
	e.tx.flags = 0;
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs + 2, 2), 2);
	CHECK_EQ(e.txq.stats.kick_stalls, 3);
	env_finish(&e);
	close(sv[0]);
	close(sv[1]);
}

/*
 * A kick refused with EAGAIN that took nothing while frames the kernel
 * took are in flight (copy mode: its send buffer full of them) is not
 * repeated burst after burst: the bursts wait (kick_waits) until one of
 * those frames completes.  Without frames in flight the next burst kicks
 * again, as a completion may never come.  A full AF_UNIX datagram socket
 * stands for the kernel saying EAGAIN.
 */
static void
test_kick_waits_for_completion(void)
{
	struct rte_mbuf *bufs[4];
	uint64_t in_flight;
	struct tx_env e;
	unsigned int i;
	int sv[2];

	CHECK(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, sv) == 0, "socketpair");
	while (send(sv[0], "x", 1, MSG_DONTWAIT) == 1)
		;
	env_init(&e, 256);
	e.tx.flags = XDP_RING_NEED_WAKEUP;
	e.txq.fd = sv[0];
	for (i = 0; i < 4; i++)
		bufs[i] = frame(e.umem_pool, 64, 0);

	/* Nothing in flight: refused, and kicked again at the next burst. */
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs, 1), 1);
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs + 1, 1), 1);
	CHECK_EQ(e.txq.stats.wakeups, 2);
	CHECK_EQ(e.txq.stats.kick_waits, 0);

	/* The kernel took one (in flight, not completed): the next refusal holds the kicks. */
	in_flight = sim_kernel_take_one(&e.tx)->addr;
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs + 2, 1), 1);
	CHECK_EQ(e.txq.stats.wakeups, 3);
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs + 3, 1), 1);
	CHECK_EQ(e.txq.stats.wakeups, 3);
	CHECK_EQ(e.txq.stats.kick_waits, 1);
	CHECK_EQ(af_xdp_ring_pending(&e.txq.tx), 3);

	/* Its completion frees the send buffer: the next burst kicks, and the kernel takes the rest. */
	sim_kernel_complete(&e.comp, in_flight);
	e.txq.fd = -1;
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs, 0), 0);
	CHECK_EQ(e.txq.stats.wakeups, 4);
	CHECK_EQ(e.txq.stats.kick_waits, 1);
	env_finish(&e);
	close(sv[0]);
	close(sv[1]);
}

/*
 * Ethernet + IPv4 (or IPv6) + TCP (or UDP) + payload bytes in an mbuf of mp,
 * with the offload request flags and lengths set; the L4 checksum field
 * holds garbage.
 */
static struct rte_mbuf *
l4_frame(struct rte_mempool *mp, bool ipv6, bool tcp, uint16_t payload, uint64_t ol_flags)
{
	uint16_t l3 = ipv6 ? sizeof(struct rte_ipv6_hdr) : sizeof(struct rte_ipv4_hdr);
	uint16_t l4 = tcp ? sizeof(struct rte_tcp_hdr) : sizeof(struct rte_udp_hdr);
	struct rte_mbuf *m = frame(mp, RTE_ETHER_HDR_LEN + l3 + l4 + payload, 7);
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *l4h = p + RTE_ETHER_HDR_LEN + l3;

	if (ipv6) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(p + RTE_ETHER_HDR_LEN);

		ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip->payload_len = rte_cpu_to_be_16(l4 + payload);
		ip->proto = tcp ? IPPROTO_TCP : IPPROTO_UDP;
		ip->hop_limits = 64;
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p + RTE_ETHER_HDR_LEN);

		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->type_of_service = 0;
		ip->total_length = rte_cpu_to_be_16(l3 + l4 + payload);
		ip->fragment_offset = 0;
		ip->time_to_live = 64;
		ip->next_proto_id = tcp ? IPPROTO_TCP : IPPROTO_UDP;
		ip->hdr_checksum = 0x1234;
	}
	if (tcp)
		((struct rte_tcp_hdr *)l4h)->data_off = 5 << 4;
	else
		((struct rte_udp_hdr *)l4h)->dgram_len = rte_cpu_to_be_16(l4 + payload);
	m->l2_len = RTE_ETHER_HDR_LEN;
	m->l3_len = l3;
	m->ol_flags = ol_flags | (ipv6 ? RTE_MBUF_F_TX_IPV6 : RTE_MBUF_F_TX_IPV4);
	return m;
}

static const uint8_t *
l3_of(const struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, const uint8_t *, m->l2_len);
}

/* Whether the frame's L4 (and IPv4 header) checksums verify. */
static bool
l4_verifies(const struct rte_mbuf *m)
{
	const void *l4 = l3_of(m) + m->l3_len;

	if (m->ol_flags & RTE_MBUF_F_TX_IPV6)
		return rte_ipv6_udptcp_cksum_verify((const struct rte_ipv6_hdr *)l3_of(m), l4) == 0;
	return rte_ipv4_udptcp_cksum_verify((const struct rte_ipv4_hdr *)l3_of(m), l4) == 0;
}

/*
 * What the kernel has not completed when the socket closes is held, taken
 * or not, each mbuf once, until freed: the burst keeps no more descriptors
 * outstanding than the ring has slots, so they are all still there.
 */
static void
test_release_holds(void)
{
	struct rte_mbuf *bufs[96];
	struct xdp_desc *ring;
	uint64_t *comp;
	struct tx_env e;
	unsigned int i;

	env_init(&e, 64);
	ring = (struct xdp_desc *)e.tx.entries;
	comp = (uint64_t *)e.comp.entries;
	for (i = 0; i < RTE_DIM(bufs); i++)
		bufs[i] = frame(e.umem_pool, 60, (uint8_t)i);
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs, 64), 64);
	/* The kernel completes 8, then takes 32 more and completes none of them. */
	for (i = 0; i < 8; i++, e.tx.consumer++, e.comp.producer++)
		comp[e.comp.producer & 63] = ring[e.tx.consumer & 63].addr;
	e.tx.consumer += 32;
	/* 40 slots free, but 56 outstanding: room for 8 only. */
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs + 64, 32), 8);
	CHECK_EQ(e.txq.outstanding, 64);
	CHECK_EQ(rte_mempool_avail_count(e.umem_pool), POOL_SIZE - RTE_DIM(bufs) + 8);
	CHECK_EQ(af_xdp_txq_release(&e.txq), 0);
	CHECK_EQ(e.txq.nb_held, 64);
	for (i = 0; i < 64; i++)
		CHECK(e.txq.held[i] == bufs[8 + i], "held mbuf %u is frame %u's", i, 8 + i);
	CHECK_EQ(e.txq.outstanding, 0);
	CHECK_EQ(rte_mempool_avail_count(e.umem_pool), POOL_SIZE - RTE_DIM(bufs) + 8);
	CHECK_EQ(af_xdp_txq_free_held(&e.txq), 64);
	CHECK(e.txq.held == NULL && e.txq.nb_held == 0, "held list emptied");
	for (i = 72; i < RTE_DIM(bufs); i++)
		rte_pktmbuf_free(bufs[i]);
	CHECK_EQ(rte_mempool_avail_count(e.umem_pool), POOL_SIZE);
	env_free(&e);
}

static void
test_csum_who(void)
{
	const enum af_xdp_zc_tx_csum yes = AF_XDP_ZC_TX_CSUM_YES, no = AF_XDP_ZC_TX_CSUM_NO;
	const char *why = NULL;

	CHECK(af_xdp_tx_csum_by_kernel(AF_XDP_TX_CSUM_AUTO, AF_XDP_TX_META_LEN, false, no, &why),
	      "copy mode with Tx metadata: the kernel, whatever the device's zero-copy transmit");
	CHECK(!af_xdp_tx_csum_by_kernel(AF_XDP_TX_CSUM_SW, AF_XDP_TX_META_LEN, false, yes, &why) &&
	      strstr(why, "tx_csum=sw") != NULL, "tx_csum=sw: the driver");
	CHECK(!af_xdp_tx_csum_by_kernel(AF_XDP_TX_CSUM_SW, AF_XDP_TX_META_LEN, true, yes, &why) &&
	      strstr(why, "tx_csum=sw") != NULL, "tx_csum=sw in zero-copy: the driver");
	CHECK(!af_xdp_tx_csum_by_kernel(AF_XDP_TX_CSUM_AUTO, 0, false, yes, &why) &&
	      strstr(why, "6.11") != NULL, "no Tx metadata: the driver");
	CHECK(!af_xdp_tx_csum_by_kernel(AF_XDP_TX_CSUM_AUTO, 0, true, yes, &why) &&
	      strstr(why, "6.11") != NULL, "zero-copy without Tx metadata: the driver");
	CHECK(af_xdp_tx_csum_by_kernel(AF_XDP_TX_CSUM_AUTO, AF_XDP_TX_META_LEN, true, yes, &why),
	      "zero-copy on a device reporting tx-checksum: the kernel");
	CHECK(!af_xdp_tx_csum_by_kernel(AF_XDP_TX_CSUM_AUTO, AF_XDP_TX_META_LEN, true, no, &why) &&
	      strstr(why, "without tx-checksum") != NULL,
	      "zero-copy on a device without tx-checksum: the driver");
	CHECK(!af_xdp_tx_csum_by_kernel(AF_XDP_TX_CSUM_AUTO, AF_XDP_TX_META_LEN, true,
					AF_XDP_ZC_TX_CSUM_UNKNOWN, &why) &&
	      strstr(why, "does not say") != NULL,
	      "zero-copy where the kernel reports no xsk-features: the driver");

	/* netlink's answer: the flag alone decides, and only when reported */
	CHECK_EQ(af_xdp_zc_tx_csum(false, NETDEV_GENL_XSK_FLAGS_TX_CHECKSUM),
		 AF_XDP_ZC_TX_CSUM_UNKNOWN);
	CHECK_EQ(af_xdp_zc_tx_csum(true, 0), AF_XDP_ZC_TX_CSUM_NO);
	CHECK_EQ(af_xdp_zc_tx_csum(true, NETDEV_GENL_XSK_FLAGS_TX_TIMESTAMP), AF_XDP_ZC_TX_CSUM_NO);
	CHECK_EQ(af_xdp_zc_tx_csum(true, NETDEV_GENL_XSK_FLAGS_TX_CHECKSUM), AF_XDP_ZC_TX_CSUM_YES);
	CHECK_EQ(af_xdp_zc_tx_csum(true, NETDEV_GENL_XSK_FLAGS_TX_TIMESTAMP |
				   NETDEV_GENL_XSK_FLAGS_TX_CHECKSUM), AF_XDP_ZC_TX_CSUM_YES);
	CHECK_EQ(NETDEV_GENL_A_DEV_XSK_FEATURES, 6);
	CHECK_EQ(NETDEV_GENL_XSK_FLAGS_TX_CHECKSUM, 2);
	CHECK_EQ(AF_XDP_TX_META_LEN, 16);
}

static void
test_csum_check(void)
{
	struct tx_env e;
	struct rte_mbuf *m;

	env_init(&e, 256);
	m = l4_frame(e.umem_pool, false, true, 100, RTE_MBUF_F_TX_TCP_CKSUM | RTE_MBUF_F_TX_IP_CKSUM);
	CHECK_EQ(af_xdp_tx_csum_check(m), 0);
	/* Nothing asked: nothing checked. */
	m->ol_flags = 0;
	m->l3_len = 0;
	CHECK_EQ(af_xdp_tx_csum_check(m), 0);
	/* Offloads the port does not offer. */
	m->l3_len = sizeof(struct rte_ipv4_hdr);
	m->ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_SCTP_CKSUM;
	CHECK_EQ(af_xdp_tx_csum_check(m), -ENOTSUP);
	m->ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_TCP_CKSUM | RTE_MBUF_F_TX_TCP_SEG;
	CHECK_EQ(af_xdp_tx_csum_check(m), -ENOTSUP);
	/* Contradictions. */
	m->ol_flags = RTE_MBUF_F_TX_TCP_CKSUM;
	CHECK_EQ(af_xdp_tx_csum_check(m), -EINVAL);
	m->ol_flags = RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_IP_CKSUM;
	CHECK_EQ(af_xdp_tx_csum_check(m), -EINVAL);
	/* l3_len not the IPv4 header's length; headers past the first segment. */
	m->ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_TCP_CKSUM;
	m->l3_len = 24;
	CHECK_EQ(af_xdp_tx_csum_check(m), -EINVAL);
	m->l3_len = sizeof(struct rte_ipv4_hdr);
	m->l2_len = 127;
	CHECK_EQ(af_xdp_tx_csum_check(m), -EINVAL);
	m->l2_len = RTE_ETHER_HDR_LEN;
	/* An IP length beyond the frame. */
	rte_pktmbuf_trim(m, 1);
	CHECK_EQ(af_xdp_tx_csum_check(m), -EINVAL);
	rte_pktmbuf_free(m);
	/* The TCP header cut short by the first segment's end. */
	m = l4_frame(e.umem_pool, false, true, 0, RTE_MBUF_F_TX_TCP_CKSUM);
	m->data_len -= 4;
	CHECK_EQ(af_xdp_tx_csum_check(m), -EINVAL);
	m->data_len += 4;
	rte_pktmbuf_free(m);
	m = l4_frame(e.umem_pool, true, false, 10, RTE_MBUF_F_TX_UDP_CKSUM);
	CHECK_EQ(af_xdp_tx_csum_check(m), 0);
	/* IPv6 extension headers: the pseudo-header would need the routing header's address. */
	m->l3_len += 8;
	CHECK_EQ(af_xdp_tx_csum_check(m), -ENOTSUP);
	rte_pktmbuf_free(m);
	env_free(&e);
}

static void
test_csum_prepare(void)
{
	struct rte_mbuf *bufs[3];
	struct tx_env e;
	const struct rte_tcp_hdr *tcp;
	const struct rte_udp_hdr *udp;

	env_init(&e, 256);
	bufs[0] = l4_frame(e.umem_pool, false, true, 100,
			   RTE_MBUF_F_TX_TCP_CKSUM | RTE_MBUF_F_TX_IP_CKSUM);
	bufs[1] = l4_frame(e.umem_pool, true, false, 100, RTE_MBUF_F_TX_UDP_CKSUM);
	bufs[2] = l4_frame(e.umem_pool, false, true, 100, RTE_MBUF_F_TX_SCTP_CKSUM);
	rte_errno = 0;
	CHECK_EQ(af_xdp_tx_prepare(NULL, bufs, 3), 2);
	CHECK_EQ(rte_errno, ENOTSUP);
	/* The pseudo-header's sum, not complemented: what CHECKSUM_PARTIAL wants. */
	tcp = (const struct rte_tcp_hdr *)(l3_of(bufs[0]) + bufs[0]->l3_len);
	CHECK_EQ(tcp->cksum, rte_ipv4_phdr_cksum((const struct rte_ipv4_hdr *)l3_of(bufs[0]), 0));
	CHECK_EQ(((const struct rte_ipv4_hdr *)l3_of(bufs[0]))->hdr_checksum, 0);
	udp = (const struct rte_udp_hdr *)(l3_of(bufs[1]) + bufs[1]->l3_len);
	CHECK_EQ(udp->dgram_cksum,
		 rte_ipv6_phdr_cksum((const struct rte_ipv6_hdr *)l3_of(bufs[1]), 0));
	rte_pktmbuf_free_bulk(bufs, 3);
	env_free(&e);
}

static void
test_csum_apply(void)
{
	struct af_xdp_tx_meta meta;
	struct rte_mbuf *m;
	struct tx_env e;

	env_init(&e, 256);
	/* Left to the kernel: where the field is, from the frame's start. */
	m = l4_frame(e.umem_pool, false, true, 100, RTE_MBUF_F_TX_TCP_CKSUM | RTE_MBUF_F_TX_IP_CKSUM);
	memset(&meta, 0, sizeof(meta));
	CHECK_EQ(af_xdp_tx_csum_apply(m, true, &meta), AF_XDP_CSUM_BY_KERNEL);
	CHECK_EQ(meta.flags, XDP_TXMD_FLAGS_CHECKSUM);
	CHECK_EQ(meta.request.csum_start, RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr));
	CHECK_EQ(meta.request.csum_offset, 16);
	/* The IPv4 header's checksum is the driver's. */
	CHECK(rte_raw_cksum(l3_of(m), sizeof(struct rte_ipv4_hdr)) == 0xffff, "IPv4 header checksum");
	/*
	 * The field seeded with the pseudo-header's sum, which the kernel sums
	 * on from, whatever it held (the application skipped
	 * rte_eth_tx_prepare(): l4_frame() leaves its bytes in the field).
	 */
	CHECK(*rte_pktmbuf_mtod_offset(m, const rte_be16_t *, meta.request.csum_start +
				       meta.request.csum_offset) ==
	      rte_ipv4_phdr_cksum((const struct rte_ipv4_hdr *)l3_of(m), 0),
	      "TCP/IPv4 left to the kernel: the field holds the pseudo-header's sum");
	/* Computed by the driver when asked, whatever the field held. */
	CHECK_EQ(af_xdp_tx_csum_apply(m, false, &meta), AF_XDP_CSUM_BY_DRIVER);
	CHECK(l4_verifies(m), "TCP/IPv4 checksum computed");
	rte_pktmbuf_free(m);
	/* No room for the metadata in front of the frame: the driver's. */
	m = l4_frame(e.umem_pool, false, false, 33, RTE_MBUF_F_TX_UDP_CKSUM);
	memmove(rte_pktmbuf_mtod(m, uint8_t *) - (m->data_off - 8), rte_pktmbuf_mtod(m, uint8_t *),
		m->data_len);
	m->data_off = 8;
	CHECK_EQ(af_xdp_tx_csum_apply(m, true, &meta), AF_XDP_CSUM_BY_DRIVER);
	CHECK(l4_verifies(m), "UDP/IPv4 checksum computed, no headroom for metadata");
	rte_pktmbuf_free(m);
	/* Padding after the IP packet, which the kernel would sum: the driver's. */
	m = l4_frame(e.umem_pool, true, false, 2, RTE_MBUF_F_TX_UDP_CKSUM);
	memset(rte_pktmbuf_append(m, 6), 0xee, 6);
	CHECK_EQ(af_xdp_tx_csum_apply(m, true, &meta), AF_XDP_CSUM_BY_DRIVER);
	CHECK(l4_verifies(m), "UDP/IPv6 checksum computed, padded frame");
	rte_pktmbuf_trim(m, 6);
	memset(rte_pktmbuf_mtod_offset(m, uint8_t *, RTE_ETHER_HDR_LEN +
				       sizeof(struct rte_ipv6_hdr) + 6), 0xee, 2);
	CHECK_EQ(af_xdp_tx_csum_apply(m, true, &meta), AF_XDP_CSUM_BY_KERNEL);
	CHECK_EQ(meta.request.csum_start, RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr));
	CHECK_EQ(meta.request.csum_offset, 6);
	CHECK(*rte_pktmbuf_mtod_offset(m, const rte_be16_t *, meta.request.csum_start +
				       meta.request.csum_offset) ==
	      rte_ipv6_phdr_cksum((const struct rte_ipv6_hdr *)l3_of(m), 0),
	      "UDP/IPv6 left to the kernel: the field holds the pseudo-header's sum");
	/* A request the check refuses. */
	m->ol_flags |= RTE_MBUF_F_TX_IP_CKSUM;
	CHECK_EQ(af_xdp_tx_csum_apply(m, true, &meta), AF_XDP_CSUM_INVALID);
	rte_pktmbuf_free(m);
	env_free(&e);
}

/* The checksum build of the burst: metadata in front of the frame, the option, the counters. */
static void
test_csum_burst(void)
{
	struct rte_mbuf *bufs[4];
	struct xdp_desc sent[4];
	struct af_xdp_tx_meta meta;
	struct tx_env e;

	env_init_meta(&e, false);
	CHECK_EQ(e.txq.chunk_size, e.layout.chunk_size - AF_XDP_TX_META_LEN);
	af_xdp_txq_set_csum(&e.txq, true);
	bufs[0] = l4_frame(e.umem_pool, false, true, 200, RTE_MBUF_F_TX_TCP_CKSUM | RTE_MBUF_F_TX_IP_CKSUM);
	bufs[1] = l4_frame(e.umem_pool, false, true, 200, RTE_MBUF_F_TX_IP_CKSUM);
	bufs[2] = l4_frame(e.other_pool, true, false, 200, RTE_MBUF_F_TX_UDP_CKSUM);	/* copied */
	bufs[3] = l4_frame(e.umem_pool, false, true, 20, RTE_MBUF_F_TX_SCTP_CKSUM);	/* refused */
	CHECK_EQ(af_xdp_tx_burst_csum(&e.txq, bufs, 4), 4);
	CHECK_EQ(sim_kernel_transmit(&e.tx, &e.comp, sent, 4), 3);
	CHECK_EQ(sent[0].options, XDP_TX_METADATA);
	memcpy(&meta, desc_data(&e, &sent[0]) - sizeof(meta), sizeof(meta));
	CHECK_EQ(meta.flags, XDP_TXMD_FLAGS_CHECKSUM);
	CHECK_EQ(meta.request.csum_start, 34);
	CHECK_EQ(meta.request.csum_offset, 16);
	CHECK_EQ(sent[1].options, 0);
	CHECK_EQ(sent[2].options, XDP_TX_METADATA);
	memcpy(&meta, desc_data(&e, &sent[2]) - sizeof(meta), sizeof(meta));
	CHECK_EQ(meta.request.csum_start, 54);
	CHECK_EQ(meta.request.csum_offset, 6);
	CHECK_EQ(e.txq.stats.csum_kernel, 2);
	CHECK_EQ(e.txq.stats.csum_sw, 1);
	CHECK_EQ(e.txq.stats.dropped, 1);
	CHECK_EQ(e.txq.stats.packets, 3);
	/* The driver's way: no option, the checksums right. */
	af_xdp_txq_set_csum(&e.txq, false);
	bufs[0] = l4_frame(e.umem_pool, false, true, 200, RTE_MBUF_F_TX_TCP_CKSUM);
	CHECK_EQ(af_xdp_tx_burst_csum(&e.txq, bufs, 1), 1);
	CHECK_EQ(sim_kernel_transmit(&e.tx, &e.comp, sent, 1), 1);
	CHECK_EQ(sent[0].options, 0);
	CHECK_EQ(e.txq.stats.csum_sw, 2);
	CHECK(l4_verifies(bufs[0]), "checksum computed in the frame sent");
	af_xdp_txq_drain(&e.txq);
	CHECK_EQ(rte_mempool_avail_count(e.umem_pool), POOL_SIZE);
	env_free(&e);
}

/* STALE in the 16 bytes in front of m's data: what an earlier user of the headroom left. */
#define STALE 0xa5

static struct rte_mbuf *
stale_frame(struct rte_mempool *mp, uint32_t len, uint8_t seed, uint16_t headroom)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t *p;

	m->data_off = headroom;
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	memset(p - RTE_MIN(headroom, (uint16_t)AF_XDP_TX_META_LEN), STALE,
	       RTE_MIN(headroom, (uint16_t)AF_XDP_TX_META_LEN));
	memset(p, seed, len);
	return m;
}

/* The Tx metadata's flags in front of descriptor d: 0 where the kernel must find no request. */
static uint64_t
meta_flags(const struct tx_env *e, const struct xdp_desc *d)
{
	uint64_t flags;

	memcpy(&flags, desc_data(e, d) - AF_XDP_TX_META_LEN, sizeof(flags));
	return flags;
}

/*
 * A zero-copy socket whose UMEM has Tx metadata, which Linux 6.8 to 7.2
 * read in front of every descriptor whatever its options (af_xdp_tx.c):
 * each descriptor without a request, in the plain build and the checksum
 * one, in place, chained or copied, has the metadata's flags 0 in front of
 * it, not the headroom's stale bytes; a frame with less headroom than the
 * metadata is copied.  In copy mode (the kernel reads only under
 * XDP_TX_METADATA) the plain burst writes nothing there.
 */
static void
test_meta_clear(void)
{
	struct rte_mbuf *bufs[4], *seg;
	struct xdp_desc sent[8];
	struct tx_env e;
	unsigned int i;

	env_init_meta(&e, true);
	af_xdp_txq_set_frame_limits(&e.txq, UINT32_MAX, 4);
	CHECK(e.txq.meta_clear, "zero-copy with Tx metadata: flags cleared");
	bufs[0] = stale_frame(e.umem_pool, 100, 1, RTE_PKTMBUF_HEADROOM);	/* in place */
	bufs[1] = stale_frame(e.umem_pool, 100, 2, 8);		/* no room: copied */
	bufs[2] = stale_frame(e.umem_pool, 100, 3, RTE_PKTMBUF_HEADROOM);	/* a chain of two */
	seg = stale_frame(e.umem_pool, 50, 4, RTE_PKTMBUF_HEADROOM);
	CHECK_EQ(rte_pktmbuf_chain(bufs[2], seg), 0);
	CHECK_EQ(af_xdp_tx_burst_meta_clear(&e.txq, bufs, 3), 3);
	CHECK_EQ(sim_kernel_transmit(&e.tx, &e.comp, sent, 8), 4);
	for (i = 0; i < 4; i++) {
		CHECK_EQ(sent[i].options & XDP_TX_METADATA, 0);
		CHECK(meta_flags(&e, &sent[i]) == 0, "plain: descriptor %u: flags 0x%llx in front",
		      i, (unsigned long long)meta_flags(&e, &sent[i]));
	}
	CHECK_EQ(e.txq.stats.copies, 1);
	CHECK_EQ(desc_data(&e, &sent[1])[0], 2);

	/* The checksum build: a frame without a request, and one the kernel completes. */
	af_xdp_txq_set_csum(&e.txq, true);
	bufs[0] = stale_frame(e.umem_pool, 100, 5, RTE_PKTMBUF_HEADROOM);
	bufs[1] = l4_frame(e.umem_pool, false, true, 200, RTE_MBUF_F_TX_TCP_CKSUM);
	CHECK_EQ(af_xdp_tx_burst_csum(&e.txq, bufs, 2), 2);
	CHECK_EQ(sim_kernel_transmit(&e.tx, &e.comp, sent, 2), 2);
	CHECK_EQ(sent[0].options, 0);
	CHECK(meta_flags(&e, &sent[0]) == 0, "checksum build, no request: flags 0x%llx in front",
	      (unsigned long long)meta_flags(&e, &sent[0]));
	CHECK_EQ(sent[1].options, XDP_TX_METADATA);
	CHECK_EQ(meta_flags(&e, &sent[1]), XDP_TXMD_FLAGS_CHECKSUM);
	af_xdp_txq_drain(&e.txq);
	CHECK_EQ(rte_mempool_avail_count(e.umem_pool), POOL_SIZE);
	env_free(&e);

	/* Copy mode: nothing written in front of the frame. */
	env_init_meta(&e, false);
	CHECK(!e.txq.meta_clear, "copy mode: flags not cleared");
	bufs[0] = stale_frame(e.umem_pool, 100, 6, RTE_PKTMBUF_HEADROOM);
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs, 1), 1);
	CHECK_EQ(sim_kernel_transmit(&e.tx, &e.comp, sent, 1), 1);
	CHECK_EQ(desc_data(&e, &sent[0])[-(int)AF_XDP_TX_META_LEN], STALE);
	af_xdp_txq_drain(&e.txq);
	CHECK_EQ(rte_mempool_avail_count(e.umem_pool), POOL_SIZE);
	env_free(&e);
}

int
main(int argc __rte_unused, char **argv)
{
	if (sim_eal_init(argv[0]) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	RUN(test_in_place);
	RUN(test_copies);
	RUN(test_too_long);
	RUN(test_chain_in_place);
	RUN(test_chain_copies);
	RUN(test_chain_single_buffer);
	RUN(test_ring_space_in_descriptors);
	RUN(test_chain_longer_than_a_copy);
	RUN(test_ring_full_and_wakeup);
	RUN(test_kick_failures);
	RUN(test_kick_waits_for_completion);
	RUN(test_release_holds);
	RUN(test_csum_who);
	RUN(test_csum_check);
	RUN(test_csum_prepare);
	RUN(test_csum_apply);
	RUN(test_csum_burst);
	RUN(test_meta_clear);
	rte_eal_cleanup();
	return unit_summary();
}
