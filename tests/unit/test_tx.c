/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * Transmit on rings in plain memory: mbufs of the UMEM's pool go out in
 * place; foreign, chained and indirect mbufs are copied into the UMEM; too
 * long frames (longer than a chunk, or than a copy holds) are dropped and
 * counted; a full ring sends part of the burst;
 * completions free the mbufs; wakeups only when the kernel asks.
 */

#include <string.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "af_xdp.h"
#include "ring_sim.h"
#include "unit_test.h"

#define POOL_SIZE 2048

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
	af_xdp_txq_bind(&e->txq, &e->tx.view, &e->comp.view, &e->layout, e->umem_pool, -1);
}

static void
env_free(struct tx_env *e)
{
	sim_ring_free(&e->tx);
	sim_ring_free(&e->comp);
	rte_mempool_free(e->umem_pool);
	rte_mempool_free(e->other_pool);
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

static void
test_too_long(void)
{
	struct rte_mbuf *bufs[2];
	struct tx_env e;

	env_init(&e, 256);
	bufs[0] = frame(e.umem_pool, 60, 0);
	bufs[1] = frame(e.umem_pool, 60, 0);
	/* Longer than a chunk: the kernel would reject it. */
	bufs[1]->pkt_len = e.layout.chunk_size + 1;
	CHECK_EQ(af_xdp_tx_burst(&e.txq, bufs, 2), 2);
	CHECK_EQ(e.txq.stats.dropped, 1);
	CHECK_EQ(e.txq.stats.packets, 1);
	CHECK_EQ(e.tx.producer - SIM_START_INDEX, 1);
	env_free(&e);
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
	sim_kernel_transmit(&e.tx, &e.comp, NULL, 0);
	af_xdp_txq_drain(&e.txq);
	CHECK_EQ(e.txq.outstanding, 0);
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
	RUN(test_chain_longer_than_a_copy);
	RUN(test_ring_full_and_wakeup);
	rte_eal_cleanup();
	return unit_summary();
}
