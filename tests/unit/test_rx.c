/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The 64-descriptor batched receive on rings in plain memory: bursts of 1,
 * 63, 64, 65 and 200, ring wrap-around (of the ring and of the u32
 * indexes), fill-ring refill counts, every mbuf field, the frame bytes,
 * wakeups and mbuf exhaustion.
 */

#include <string.h>

#include <rte_cpuflags.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "af_xdp.h"
#include "af_xdp_rx.h"
#include "ring_sim.h"
#include "unit_test.h"

#define PORT_ID 3
#define POOL_SIZE 8192

/* Every test runs against each build of the burst, for one or several descriptors a frame. */
static eth_rx_burst_t rx_burst_fn;
static eth_rx_burst_t rx_burst_mb_fn;
static eth_rx_burst_t rx_burst_cksum_fn;

struct rx_env {
	struct rte_mempool *mp;
	struct af_xdp_umem_layout layout;
	struct sim_ring rx, fill;
	struct af_xdp_rx_queue rxq;
	uint32_t seq_sent, seq_seen;
};

static struct rte_mempool *
make_pool(const char *name, unsigned int n)
{
	struct rte_mempool *mp = rte_pktmbuf_pool_create(name, n, 0, 0,
							 RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	void *objs[POOL_SIZE];
	unsigned int i;

	if (mp == NULL)
		return NULL;
	/* Leave garbage in every field a driver must set, to see it set. */
	if (rte_mempool_get_bulk(mp, objs, n) != 0)
		return mp;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];

		m->data_off = 7;
		m->port = 77;
		m->ol_flags = ~0ULL;
		m->packet_type = ~0u;
		m->vlan_tci = 0xabcd;
		m->pkt_len = 1;
		m->data_len = 1;
	}
	rte_mempool_put_bulk(mp, objs, n);
	return mp;
}

/* A queue with rings of ring_size on mempool mp (NULL: a new one of pool_size mbufs). */
static void
env_init_pool(struct rx_env *e, uint32_t ring_size, unsigned int pool_size,
	      struct rte_mempool *mp)
{
	static unsigned int pools;
	char name[32], err[256];

	memset(e, 0, sizeof(*e));
	snprintf(name, sizeof(name), "rx_pool_%u", pools++);
	e->mp = mp != NULL ? mp : make_pool(name, pool_size);
	CHECK(e->mp != NULL, "mempool");
	CHECK(af_xdp_umem_layout(e->mp, &e->layout, err, sizeof(err)) == 0, "%s", err);
	sim_ring_init(&e->rx, ring_size, sizeof(struct xdp_desc), false);
	sim_ring_init(&e->fill, ring_size, sizeof(uint64_t), true);
	e->rxq.mb_pool = e->mp;
	e->rxq.port_id = PORT_ID;
	af_xdp_rxq_bind(&e->rxq, &e->rx.view, &e->fill.view, &e->layout, -1);
}

static void
env_init(struct rx_env *e, uint32_t ring_size, unsigned int pool_size)
{
	env_init_pool(e, ring_size, pool_size, NULL);
}

static void
env_free_rings(struct rx_env *e)
{
	sim_ring_free(&e->rx);
	sim_ring_free(&e->fill);
}

static void
env_free(struct rx_env *e)
{
	env_free_rings(e);
	rte_mempool_free(e->mp);
}

/* Free space in the fill ring as the kernel sees it. */
static uint32_t
fill_space(const struct rx_env *e)
{
	return e->fill.size - (e->fill.producer - e->fill.consumer);
}

static void
check_mbuf(struct rx_env *e, const struct rte_mbuf *m, uint32_t len)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t b, bad = 0;

	CHECK(m->pool == e->mp, "mbuf %p not from the pool", (const void *)m);
	CHECK_EQ(m->data_off, AF_XDP_PACKET_HEADROOM);
	CHECK_EQ(m->pkt_len, len);
	CHECK_EQ(m->data_len, len);
	CHECK_EQ(m->nb_segs, 1);
	CHECK_EQ(rte_mbuf_refcnt_read(m), 1);
	CHECK_EQ(m->port, PORT_ID);
	CHECK(m->next == NULL, "next %p", (void *)m->next);
	CHECK_EQ(m->ol_flags, 0);
	CHECK_EQ(m->packet_type, 0);
	CHECK_EQ(m->vlan_tci, 0);
	/* The frame is where the kernel wrote it, inside the UMEM. */
	CHECK((uintptr_t)p >= e->layout.area && (uintptr_t)p + len <= e->layout.area + e->layout.size,
	      "frame outside the UMEM");
	for (b = 0; b < len; b++)
		bad += p[b] != (uint8_t)(e->seq_seen + b);
	CHECK(bad == 0, "frame %u: %u bytes differ", e->seq_seen, bad);
	e->seq_seen++;
}

static const uint32_t frame_lens[] = { 60, 64, 128, 1500, 1514, 1920, 42 };

/* Kernel delivers n frames; one burst of up to `burst`; checks and frees them. */
static uint16_t
receive(struct rx_env *e, uint32_t n, uint16_t burst, uint32_t expect)
{
	struct rte_mbuf *bufs[512];
	uint32_t first = e->seq_seen;
	uint16_t got, i;

	CHECK_EQ(sim_kernel_receive(&e->fill, &e->rx, e->layout.area, frame_lens,
				    RTE_DIM(frame_lens), n, true, &e->seq_sent), n);
	got = rx_burst_fn(&e->rxq, bufs, burst);
	CHECK_EQ(got, expect);
	for (i = 0; i < got; i++)
		check_mbuf(e, bufs[i], frame_lens[(first + i) % RTE_DIM(frame_lens)]);
	rte_pktmbuf_free_bulk(bufs, got);
	return got;
}

static void
test_initial_fill(void)
{
	struct rx_env e;

	env_init(&e, 2048, POOL_SIZE);
	CHECK_EQ(af_xdp_rxq_fill(&e.rxq), 2048);
	CHECK_EQ(e.fill.producer - SIM_START_INDEX, 2048);
	CHECK_EQ(rte_mempool_avail_count(e.mp), POOL_SIZE - 2048);
	/* Full: a second call offers nothing. */
	CHECK_EQ(af_xdp_rxq_fill(&e.rxq), 0);
	env_free(&e);
}

static void
test_burst_sizes(void)
{
	static const uint32_t sizes[] = { 1, 63, 64, 65, 200 };
	uint64_t bytes = 0, packets = 0;
	unsigned int i;
	struct rx_env e;

	env_init(&e, 512, POOL_SIZE);
	af_xdp_rxq_fill(&e.rxq);
	for (i = 0; i < RTE_DIM(sizes); i++) {
		uint32_t before = e.fill.producer, seq = e.seq_seen, k;

		receive(&e, sizes[i], (uint16_t)sizes[i], sizes[i]);
		for (k = 0; k < sizes[i]; k++)
			bytes += frame_lens[(seq + k) % RTE_DIM(frame_lens)];
		packets += sizes[i];
		/* Refill in whole batches, until less than a batch is free. */
		CHECK((e.fill.producer - before) % AF_XDP_RX_BATCH == 0,
		      "refill of %u", e.fill.producer - before);
		CHECK(fill_space(&e) < AF_XDP_RX_BATCH, "burst %u: %u fill slots left empty",
		      sizes[i], fill_space(&e));
	}
	CHECK_EQ(e.rxq.stats.packets, packets);
	CHECK_EQ(e.rxq.stats.bytes, bytes);
	/* 1, 63: partial; 64: full; 65: full + partial; 200: 3 full + partial */
	CHECK_EQ(e.rxq.stats.full_batches, 5);
	CHECK_EQ(e.rxq.stats.partial_batches, 4);
	CHECK_EQ(e.rxq.stats.nombuf, 0);
	CHECK_EQ(e.rxq.stats.wakeups, 0);
	env_free(&e);
}

static void
test_refill_counts(void)
{
	struct rx_env e;

	env_init(&e, 256, POOL_SIZE);
	af_xdp_rxq_fill(&e.rxq);
	/* 65 taken: one batch of 64 refilled, one slot waits for more. */
	receive(&e, 65, 256, 65);
	CHECK_EQ(e.fill.producer - SIM_START_INDEX, 256 + 64);
	CHECK_EQ(fill_space(&e), 1);
	/* 63 more: 64 free, one more batch. */
	receive(&e, 63, 256, 63);
	CHECK_EQ(e.fill.producer - SIM_START_INDEX, 256 + 128);
	CHECK_EQ(fill_space(&e), 0);
	/* In flight: the whole fill ring, nothing else. */
	CHECK_EQ(rte_mempool_avail_count(e.mp), POOL_SIZE - 256);
	env_free(&e);
}

static void
test_burst_limits(void)
{
	struct rte_mbuf *bufs[300];
	struct rx_env e;
	uint16_t got;

	env_init(&e, 512, POOL_SIZE);
	af_xdp_rxq_fill(&e.rxq);
	/* More ready than asked: take what was asked, leave the rest. */
	receive(&e, 200, 32, 32);
	got = rx_burst_fn(&e.rxq, bufs, 300);
	CHECK_EQ(got, 168);
	while (got > 0)
		check_mbuf(&e, bufs[168 - got--], frame_lens[e.seq_seen % RTE_DIM(frame_lens)]);
	rte_pktmbuf_free_bulk(bufs, 168);
	/* A burst of 0 is a no-op. */
	CHECK_EQ(rx_burst_fn(&e.rxq, bufs, 0), 0);
	env_free(&e);
}

static void
test_wraparound(void)
{
	static const uint32_t pattern[] = { 1, 17, 64, 63, 65, 5, 128, 100, 33 };
	unsigned int round;
	struct rx_env e;

	/*
	 * The smallest ring: bursts wrap it many times over and batches
	 * straddle its end.  At most 256 - 63 chunks are in the fill ring.
	 */
	env_init(&e, AF_XDP_RING_MIN, POOL_SIZE);
	af_xdp_rxq_fill(&e.rxq);
	for (round = 0; round < 300; round++) {
		uint32_t n = pattern[round % RTE_DIM(pattern)];

		receive(&e, n, 256, n);
	}
	CHECK_EQ(e.seq_seen, e.seq_sent);
	CHECK((uint32_t)(e.rx.consumer - SIM_START_INDEX) > 100u, "u32 index wrap crossed");
	env_free(&e);
}

static void
test_empty_and_wakeup(void)
{
	struct rte_mbuf *bufs[64];
	struct rx_env e;

	env_init(&e, 256, POOL_SIZE);
	af_xdp_rxq_fill(&e.rxq);
	CHECK_EQ(rx_burst_fn(&e.rxq, bufs, 64), 0);
	CHECK_EQ(e.rxq.stats.wakeups, 0);
	/* The kernel asks for a kick: an empty poll makes one, never waits. */
	e.fill.flags = XDP_RING_NEED_WAKEUP;
	CHECK_EQ(rx_burst_fn(&e.rxq, bufs, 64), 0);
	CHECK_EQ(e.rxq.stats.wakeups, 1);
	CHECK_EQ(e.rxq.stats.packets, 0);
	CHECK_EQ(e.rxq.stats.partial_batches, 0);
	env_free(&e);
}

/* The application keeps every frame it receives, until nothing more comes. */
static uint16_t
receive_and_hold(struct rx_env *e, struct rte_mbuf **held, uint16_t room)
{
	uint16_t got, n = 0;

	do {
		sim_kernel_receive(&e->fill, &e->rx, e->layout.area, frame_lens, 1, 64, false,
				   &e->seq_sent);
		got = rx_burst_fn(&e->rxq, held + n, RTE_MIN(64, room - n));
		n += got;
	} while (got != 0 && n < room);
	return n;
}

/*
 * rx_nombuf counts each mbuf the fill ring lacked once (af_xdp.h): the
 * deepest a shortage gets, not a batch per retry.
 */
static void
test_mbuf_exhaustion(void)
{
	struct rte_mbuf *held[256 + 64];
	struct rte_mbuf *bufs[64];
	struct rx_env e;
	uint16_t n;
	int i;

	/* 256 + 64 mbufs: the fill ring takes 256, one more batch is possible. */
	env_init(&e, 256, 256 + 64);
	CHECK_EQ(af_xdp_rxq_fill(&e.rxq), 256);
	n = receive_and_hold(&e, held, RTE_DIM(held));
	CHECK_EQ(n, 256 + 64);
	/* The kernel has no chunk left: frames would be dropped there. */
	CHECK_EQ(e.fill.producer, e.fill.consumer);
	/* Each of the ring's 256 slots lacked an mbuf: 256, counted as it emptied. */
	CHECK_EQ(e.rxq.stats.nombuf, 256);
	CHECK_EQ(e.rxq.fill_shortfall, 256);
	/* Every empty poll retries the refill, and counts nothing more. */
	for (i = 0; i < 100; i++)
		CHECK_EQ(rx_burst_fn(&e.rxq, bufs, 64), 0);
	CHECK_EQ(e.rxq.stats.nombuf, 256);

	/* 64 back: the next poll offers them; the 192 still lacking were counted. */
	rte_pktmbuf_free_bulk(held + n - 64, 64);
	n -= 64;
	CHECK_EQ(rx_burst_fn(&e.rxq, bufs, 64), 0);
	CHECK_EQ(fill_space(&e), 192);
	CHECK_EQ(e.rxq.stats.nombuf, 256);
	/* Taken and held again: back to 256 lacking, no deeper than before. */
	n += receive_and_hold(&e, held + n, RTE_DIM(held) - n);
	CHECK_EQ(n, 256 + 64);
	CHECK_EQ(e.rxq.stats.nombuf, 256);

	/* Once mbufs come back, an empty poll refills: no frame is needed to restart. */
	rte_pktmbuf_free_bulk(held, n);
	CHECK_EQ(rx_burst_fn(&e.rxq, bufs, 64), 0);
	CHECK_EQ(fill_space(&e), 0);
	CHECK_EQ(e.rxq.fill_shortfall, 0);
	/* That ended the shortage: the next one is counted afresh. */
	n = receive_and_hold(&e, held, RTE_DIM(held));
	CHECK_EQ(n, 256 + 64);
	CHECK_EQ(e.rxq.stats.nombuf, 2 * 256);
	rte_pktmbuf_free_bulk(held, n);
	env_free(&e);
}

/*
 * After the socket is gone, every mbuf the queue offered and did not get
 * back returns to the mempool: those still in the fill ring, those the
 * kernel took from it and kept, and those in the Rx ring not yet taken.
 * Nothing else: not what the application holds, not what another queue on
 * the same mempool has offered.
 */
static void
test_reclaim(void)
{
	struct rte_mempool *mp = rte_pktmbuf_pool_create("rx_reclaim", POOL_SIZE, 0, 0,
							 RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	struct rte_mbuf *bufs[128], *held[40], **all;
	unsigned int in_fill, kept, avail, i;
	struct rx_env e, other;
	uint16_t got;

	CHECK(mp != NULL, "mempool");
	env_init_pool(&e, 256, 0, mp);
	env_init_pool(&other, 256, 0, mp);
	CHECK_EQ(af_xdp_rxq_fill(&e.rxq), 256);
	CHECK_EQ(af_xdp_rxq_fill(&other.rxq), 256);

	/* 100 frames received: the application frees 60 and keeps 40. */
	CHECK_EQ(sim_kernel_receive(&e.fill, &e.rx, e.layout.area, frame_lens,
				    RTE_DIM(frame_lens), 100, false, &e.seq_sent), 100);
	got = rx_burst_fn(&e.rxq, bufs, 100);
	CHECK_EQ(got, 100);
	memcpy(held, bufs, sizeof(held));
	rte_pktmbuf_free_bulk(bufs + RTE_DIM(held), got - RTE_DIM(held));
	/* 30 more in the Rx ring, not taken; the kernel keeps 5 it took from the fill ring. */
	CHECK_EQ(sim_kernel_receive(&e.fill, &e.rx, e.layout.area, frame_lens,
				    RTE_DIM(frame_lens), 30, false, &e.seq_sent), 30);
	kept = sim_kernel_keep(&e.fill, 5);
	CHECK_EQ(kept, 5);
	in_fill = e.fill.producer - e.fill.consumer;

	CHECK_EQ(af_xdp_rxq_reclaim(&e.rxq), in_fill + 30 + kept);
	/* What the other queue offered and the application holds are still out. */
	CHECK_EQ(rte_mempool_avail_count(mp), POOL_SIZE - 256 - RTE_DIM(held));
	/* A second look finds nothing more. */
	CHECK_EQ(af_xdp_rxq_reclaim(&e.rxq), 0);

	/* Every mbuf in the pool, the reclaimed ones among them, is as good as new. */
	avail = rte_mempool_avail_count(mp);
	all = calloc(avail, sizeof(*all));
	CHECK(all != NULL && rte_pktmbuf_alloc_bulk(mp, all, avail) == 0, "take all %u", avail);
	for (i = 0; all != NULL && i < avail; i++) {
		if (rte_mbuf_refcnt_read(all[i]) != 1 || all[i]->nb_segs != 1 ||
		    all[i]->next != NULL || !RTE_MBUF_DIRECT(all[i])) {
			CHECK(false, "mbuf %u: refcnt %u, nb_segs %u", i,
			      rte_mbuf_refcnt_read(all[i]), all[i]->nb_segs);
			break;
		}
	}
	if (all != NULL)
		rte_pktmbuf_free_bulk(all, avail);
	free(all);

	rte_pktmbuf_free_bulk(held, RTE_DIM(held));
	CHECK_EQ(af_xdp_rxq_reclaim(&other.rxq), 256);
	CHECK_EQ(rte_mempool_avail_count(mp), POOL_SIZE);
	env_free_rings(&other);
	env_free(&e);
}

/* ---- frames of several descriptors (multi-buffer) ---- */

/* A multi-buffer queue: the burst for chains, the scatter offload on. */
static void
env_init_mb(struct rx_env *e, uint32_t ring_size, unsigned int pool_size)
{
	env_init(e, ring_size, pool_size);
	e->rxq.scatter = true;
}

static uint32_t
frame_size(const struct rx_env *e)
{
	return e->layout.max_frame;
}

/* The kernel delivers n frames of the lengths given, as many descriptors as each takes. */
static uint32_t
deliver(struct rx_env *e, const uint32_t *lens, uint32_t nb_lens, uint32_t n)
{
	return sim_kernel_receive_mb(&e->fill, &e->rx, e->layout.area, frame_size(e), lens,
				     nb_lens, n, true, &e->seq_sent);
}

/*
 * One received frame of len bytes: a chain of one mbuf per frame_size
 * bytes, every field right, the bytes intact and in order across segments.
 */
static void
check_frame(struct rx_env *e, const struct rte_mbuf *m, uint32_t len)
{
	uint32_t segs = (len - 1) / frame_size(e) + 1, off = 0, bad = 0, i, b;
	const struct rte_mbuf *seg = m;

	CHECK_EQ(m->pkt_len, len);
	CHECK_EQ(m->nb_segs, segs);
	CHECK_EQ(m->port, PORT_ID);
	CHECK_EQ(m->ol_flags, 0);
	CHECK_EQ(m->packet_type, 0);
	CHECK_EQ(m->vlan_tci, 0);
	for (i = 0; i < segs && seg != NULL; i++, seg = seg->next) {
		const uint8_t *p = rte_pktmbuf_mtod(seg, const uint8_t *);
		uint32_t want = RTE_MIN(frame_size(e), len - off);

		CHECK_EQ(seg->data_len, want);
		CHECK_EQ(seg->data_off, AF_XDP_PACKET_HEADROOM);
		CHECK_EQ(rte_mbuf_refcnt_read(seg), 1);
		CHECK(seg->pool == e->mp, "segment %u not from the pool", i);
		for (b = 0; b < seg->data_len; b++)
			bad += p[b] != (uint8_t)(e->seq_seen + off + b);
		off += seg->data_len;
	}
	CHECK(i == segs && seg == NULL, "frame %u: %u segments linked, %u expected", e->seq_seen,
	      i, segs);
	CHECK(bad == 0, "frame %u: %u bytes differ", e->seq_seen, bad);
	CHECK_EQ(off, len);
	e->seq_seen++;
}

/* One burst of up to burst frames; expect frames of the lengths given, in order. */
static uint16_t
receive_mb(struct rx_env *e, uint16_t burst, const uint32_t *lens, uint32_t nb_lens,
	   uint16_t expect)
{
	struct rte_mbuf *bufs[512];
	uint16_t got, i;

	got = rx_burst_mb_fn(&e->rxq, bufs, burst);
	CHECK_EQ(got, expect);
	for (i = 0; i < got; i++)
		check_frame(e, bufs[i], lens[e->seq_seen % nb_lens]);
	rte_pktmbuf_free_bulk(bufs, got);
	return got;
}

/* Chains of 2 to 18 descriptors, some exact multiples of the chunk's frame size. */
static void
test_mb_chains(void)
{
	uint64_t bytes = 0;
	uint32_t k, lens[1];
	struct rx_env e;

	env_init_mb(&e, 512, POOL_SIZE);
	af_xdp_rxq_fill(&e.rxq);
	for (k = 1; k <= 18; k++) {
		uint32_t variant;

		for (variant = 0; variant < 2; variant++) {
			lens[0] = k * frame_size(&e) - (variant == 0 ? 0 : 7);
			e.seq_sent = e.seq_seen;	/* the pattern follows lens[0] */
			CHECK_EQ(deliver(&e, lens, 1, 1), 1);
			receive_mb(&e, 32, lens, 1, 1);
			bytes += lens[0];
		}
	}
	CHECK_EQ(e.rxq.stats.packets, 36);
	CHECK_EQ(e.rxq.stats.bytes, bytes);
	CHECK_EQ(e.rxq.stats.multi_buffer, 34);
	CHECK_EQ(e.rxq.stats.chains_dropped, 0);
	env_free(&e);
}

/*
 * A frame whose last descriptors the kernel has not produced yet at the end
 * of a burst is kept and completed by a later burst; and one that straddles
 * two batches of 64 arrives whole in one burst.
 */
static void
test_mb_split(void)
{
	static const uint32_t one[] = { 9000 };
	uint32_t lens[64], i, fs;
	struct rx_env e;

	env_init_mb(&e, 512, POOL_SIZE);
	af_xdp_rxq_fill(&e.rxq);
	fs = frame_size(&e);
	/* 9000 bytes: 5 descriptors; the kernel shows the first 3. */
	CHECK_EQ(deliver(&e, one, 1, 1), 1);
	e.rx.producer -= 2;
	receive_mb(&e, 32, one, 1, 0);
	CHECK(e.rxq.chain.head != NULL, "the partial frame is not kept");
	e.rx.producer += 2;
	receive_mb(&e, 32, one, 1, 1);
	/* 63 frames of one descriptor, then one of 5: the batch boundary cuts it. */
	for (i = 0; i < 63; i++)
		lens[i] = 60 + i;
	lens[63] = 4 * fs + 1;
	e.seq_sent = e.seq_seen = 0;
	CHECK_EQ(deliver(&e, lens, 64, 64), 64);
	receive_mb(&e, 64, lens, 64, 64);
	CHECK_EQ(e.rxq.stats.full_batches, 1);
	env_free(&e);
}

/* Bursts of mixed frames over the smallest ring, chains across its end, in order. */
static void
test_mb_mixed_and_wrap(void)
{
	static const uint32_t lens[] = { 60, 9000, 64, 1514, 3000, 60, 60, 9014, 42, 5000 };
	uint32_t round, sent = 0;
	struct rx_env e;

	env_init_mb(&e, AF_XDP_RING_MIN, POOL_SIZE);
	af_xdp_rxq_fill(&e.rxq);
	for (round = 0; round < 200; round++) {
		uint32_t n = deliver(&e, lens, RTE_DIM(lens), 1 + round % 40);
		uint16_t got = 0;

		sent += n;
		while (e.seq_seen < sent && got < 100)
			got += receive_mb(&e, 64, lens, RTE_DIM(lens),
					  (uint16_t)RTE_MIN(64u, sent - e.seq_seen));
	}
	CHECK_EQ(e.seq_seen, e.seq_sent);
	CHECK((uint32_t)(e.rx.consumer - SIM_START_INDEX) > 2 * AF_XDP_RING_MIN, "ring wrapped");
	CHECK(e.rxq.chain.head == NULL, "a frame left half assembled");
	CHECK_EQ(e.rxq.stats.chains_dropped, 0);
	env_free(&e);
}

/*
 * Mempool exhaustion: the kernel delivers a frame only when it has a fill
 * entry for each of its descriptors; frames held by the application until
 * nothing comes; never half a frame; every mbuf accounted for.
 */
static void
test_mb_exhaustion(void)
{
	static const uint32_t lens[] = { 9000, 60 };	/* 5 + 1 descriptors */
	struct rte_mbuf *held[512];
	unsigned int pool = 256 + 64, n = 0, in_mbufs = 0, i;
	struct rx_env e;
	uint16_t got;

	env_init_mb(&e, 256, pool);
	CHECK_EQ(af_xdp_rxq_fill(&e.rxq), 256);
	do {
		deliver(&e, lens, RTE_DIM(lens), 16);
		got = rx_burst_mb_fn(&e.rxq, held + n, 64);
		n += got;
	} while (got != 0 && n < RTE_DIM(held));
	for (i = 0; i < n; i++) {
		check_frame(&e, held[i], lens[i % RTE_DIM(lens)]);
		in_mbufs += held[i]->nb_segs;
	}
	CHECK(e.rxq.chain.head == NULL, "half a frame kept");
	CHECK(e.rxq.stats.nombuf > 0, "nombuf not counted");
	/* Every mbuf: held in whole frames, offered to the kernel, or in the pool. */
	CHECK_EQ(in_mbufs + (e.fill.producer - e.fill.consumer) + rte_mempool_avail_count(e.mp),
		 pool);
	/* Freed, they refill the ring at the next poll, whole batches at a time. */
	rte_pktmbuf_free_bulk(held, n);
	CHECK_EQ(rx_burst_mb_fn(&e.rxq, held, 64), 0);
	CHECK(fill_space(&e) < AF_XDP_RX_BATCH, "fill ring not refilled");
	CHECK_EQ(af_xdp_rxq_reclaim(&e.rxq), e.fill.producer - e.fill.consumer);
	CHECK_EQ(rte_mempool_avail_count(e.mp), pool);
	env_free(&e);
}

/*
 * Without the scatter offload the application takes frames of one mbuf: a
 * chain is dropped and counted, as a NIC without scatter would; a frame
 * half assembled at unbind is freed; nothing is lost.
 */
static void
test_mb_no_scatter_and_unbind(void)
{
	static const uint32_t lens[] = { 60, 9000, 64 };
	struct rte_mbuf *bufs[8];
	struct rx_env e;

	env_init_mb(&e, 256, POOL_SIZE);
	e.rxq.scatter = false;
	af_xdp_rxq_fill(&e.rxq);
	CHECK_EQ(deliver(&e, lens, RTE_DIM(lens), 3), 3);
	CHECK_EQ(rx_burst_mb_fn(&e.rxq, bufs, 8), 2);
	CHECK_EQ(bufs[0]->pkt_len, 60);
	CHECK_EQ(bufs[1]->pkt_len, 64);
	rte_pktmbuf_free_bulk(bufs, 2);
	CHECK_EQ(e.rxq.stats.chains_dropped, 1);
	CHECK_EQ(e.rxq.stats.packets, 2);
	/* The first 3 descriptors of a 5-descriptor frame, then the socket goes. */
	e.rxq.scatter = true;
	CHECK_EQ(deliver(&e, lens + 1, 1, 1), 1);
	e.rx.producer -= 2;
	CHECK_EQ(rx_burst_mb_fn(&e.rxq, bufs, 8), 0);
	af_xdp_rxq_unbind(&e.rxq);
	CHECK(e.rxq.chain.head == NULL, "chain kept after unbind");
	e.rx.producer += 2;	/* the kernel's last two descriptors, never taken */
	CHECK_EQ(af_xdp_rxq_reclaim(&e.rxq), e.fill.producer - e.fill.consumer + 2);
	CHECK_EQ(rte_mempool_avail_count(e.mp), POOL_SIZE);
	env_free(&e);
}

/*
 * One frame for the IPv4 header check: Ethernet, the tags (TPIDs), then
 * type and the l3 bytes; the IPv4 header's checksum made right when ihl
 * says a header (fix_ihl).
 */
static struct rte_mbuf *
cksum_frame(struct rte_mempool *mp, const uint16_t *tpids, unsigned int nb_tags, uint16_t type,
	    uint8_t version_ihl, uint32_t l3_len, bool fix)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, RTE_ETHER_HDR_LEN + 4 * nb_tags + l3_len);
	struct rte_ipv4_hdr *ip;
	unsigned int i, off = 12;

	memset(p, 0, m->data_len);
	for (i = 0; i < nb_tags; i++, off += 4) {
		*(rte_be16_t *)(p + off) = rte_cpu_to_be_16(tpids[i]);
		*(rte_be16_t *)(p + off + 2) = rte_cpu_to_be_16(100 + i);	/* the tci */
	}
	*(rte_be16_t *)(p + off) = rte_cpu_to_be_16(type);
	ip = (struct rte_ipv4_hdr *)(p + off + 2);
	ip->version_ihl = version_ihl;
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(0xc6120001);
	ip->dst_addr = rte_cpu_to_be_32(0xc6120101);
	if (fix)
		ip->hdr_checksum = ~rte_raw_cksum(ip, (version_ihl & 0xf) * 4u);
	m->ol_flags = 0;
	return m;
}

/* RTE_ETH_RX_OFFLOAD_IPV4_CKSUM's flag for each kind of frame (af_xdp_rx_ipv4_cksum()). */
static void
test_ipv4_cksum(void)
{
	static const uint16_t vlan[] = { RTE_ETHER_TYPE_VLAN },
		qinq[] = { RTE_ETHER_TYPE_QINQ, RTE_ETHER_TYPE_VLAN },
		three[] = { RTE_ETHER_TYPE_QINQ, RTE_ETHER_TYPE_VLAN, RTE_ETHER_TYPE_VLAN };
	const uint64_t good = RTE_MBUF_F_RX_IP_CKSUM_GOOD, bad = RTE_MBUF_F_RX_IP_CKSUM_BAD;
	struct rte_mempool *mp = make_pool("cksum_pool", 64);
	const struct {
		const char *what;
		struct rte_mbuf *m;
		uint64_t want;
	} cases[] = {
		{ "IPv4", cksum_frame(mp, NULL, 0, RTE_ETHER_TYPE_IPV4, 0x45, 28, true), good },
		{ "IPv4, checksum wrong", cksum_frame(mp, NULL, 0, RTE_ETHER_TYPE_IPV4, 0x45, 28,
						       false), bad },
		{ "IPv4 with options", cksum_frame(mp, NULL, 0, RTE_ETHER_TYPE_IPV4, 0x47, 36, true),
		  good },
		{ "802.1Q, IPv4", cksum_frame(mp, vlan, 1, RTE_ETHER_TYPE_IPV4, 0x45, 28, true),
		  good },
		{ "QinQ, IPv4", cksum_frame(mp, qinq, 2, RTE_ETHER_TYPE_IPV4, 0x45, 28, true), good },
		{ "three tags", cksum_frame(mp, three, 3, RTE_ETHER_TYPE_IPV4, 0x45, 28, true), 0 },
		{ "IPv6", cksum_frame(mp, NULL, 0, RTE_ETHER_TYPE_IPV6, 0x60, 48, false), 0 },
		{ "ARP", cksum_frame(mp, NULL, 0, RTE_ETHER_TYPE_ARP, 0x00, 28, false), 0 },
		{ "IHL 4", cksum_frame(mp, NULL, 0, RTE_ETHER_TYPE_IPV4, 0x44, 28, true), bad },
		{ "version 6 as IPv4", cksum_frame(mp, NULL, 0, RTE_ETHER_TYPE_IPV4, 0x65, 28,
						    true), bad },
		{ "IPv4 cut short", cksum_frame(mp, NULL, 0, RTE_ETHER_TYPE_IPV4, 0x45, 12, false),
		  0 },
		{ "IHL past the end", cksum_frame(mp, NULL, 0, RTE_ETHER_TYPE_IPV4, 0x4f, 40,
						   false), 0 },
	};
	struct rte_mbuf *bufs[RTE_DIM(cases)];
	unsigned int i;

	for (i = 0; i < RTE_DIM(cases); i++)
		bufs[i] = cases[i].m;
	af_xdp_rx_ipv4_cksum(bufs, RTE_DIM(cases));
	for (i = 0; i < RTE_DIM(cases); i++)
		CHECK(cases[i].m->ol_flags == cases[i].want, "%s: ol_flags 0x%llx, expected 0x%llx",
		      cases[i].what, (unsigned long long)cases[i].m->ol_flags,
		      (unsigned long long)cases[i].want);
	rte_pktmbuf_free_bulk(bufs, RTE_DIM(cases));
	rte_mempool_free(mp);
}

/* The cases of frames of one descriptor each, through rx_burst_fn. */
/* ---- the copy burst: a queue on the driver's UMEM ---- */

/* The application's mbufs: 1024 bytes of data each, chains for longer frames. */
#define APP_ROOM 1024

/* A queue on the driver's UMEM copying into app, inner taking the frames: the fill ring's. */
static unsigned int
copy_env_init(struct rx_env *e, struct rte_mempool *app, eth_rx_burst_t inner)
{
	env_init_mb(e, 512, POOL_SIZE);
	e->rxq.app_pool = app;
	e->rxq.copy_inner = inner;
	return af_xdp_rxq_fill(&e->rxq);
}

/*
 * Frames of one to several UMEM chunks, received by the multi-buffer burst
 * into the UMEM's mbufs and copied by af_xdp_rx_burst_copy() into mbufs of
 * another mempool, 1024 bytes each: every byte where it belongs, chains of
 * the application's size, the UMEM's mbufs all back; and with the
 * application's mempool nearly empty, the frames that find no mbuf dropped
 * and counted, nothing lost of either pool.
 */
static void
test_copy_burst(void)
{
	static const uint32_t lens[] = { 60, 1024, 1025, 1920, 2048, 5000, 9000, 64 };
	const uint32_t n = 40;
	struct rte_mempool *app = rte_pktmbuf_pool_create("rx_copy_app", 512, 0, 0,
							  RTE_PKTMBUF_HEADROOM + APP_ROOM,
							  SOCKET_ID_ANY);
	struct rte_mbuf *bufs[64], *hold[512];
	unsigned int offered, held, got_all = 0, i;
	struct rx_env e;

	CHECK(app != NULL, "application mempool");
	offered = copy_env_init(&e, app, rx_burst_mb_fn);
	CHECK_EQ(deliver(&e, lens, RTE_DIM(lens), n), n);
	while (got_all < n) {
		uint16_t got = af_xdp_rx_burst_copy(&e.rxq, bufs, 16);

		if (got == 0)
			break;
		for (i = 0; i < got; i++) {
			const struct rte_mbuf *m = bufs[i], *seg;
			uint32_t len = lens[e.seq_seen % RTE_DIM(lens)], off = 0, bad = 0, b;

			CHECK_EQ(m->pkt_len, len);
			CHECK_EQ(m->nb_segs, (len - 1) / APP_ROOM + 1);
			CHECK_EQ(m->port, PORT_ID);
			for (seg = m; seg != NULL; seg = seg->next) {
				const uint8_t *p = rte_pktmbuf_mtod(seg, const uint8_t *);

				CHECK(seg->pool == app, "segment not of the application's pool");
				CHECK_EQ(seg->data_len, RTE_MIN((uint32_t)APP_ROOM, len - off));
				for (b = 0; b < seg->data_len; b++)
					bad += p[b] != (uint8_t)(e.seq_seen + off + b);
				off += seg->data_len;
			}
			CHECK_EQ(off, len);
			CHECK(bad == 0, "frame %u: %u bytes differ", e.seq_seen, bad);
			e.seq_seen++;
		}
		rte_pktmbuf_free_bulk(bufs, got);
		got_all += got;
	}
	CHECK_EQ(got_all, n);
	CHECK_EQ(e.rxq.stats.copies, n);
	CHECK_EQ(e.rxq.stats.packets, n);
	CHECK_EQ(e.rxq.stats.copy_nombuf, 0);
	/* The UMEM's mbufs are back: in the pool, or offered again. */
	CHECK_EQ(rte_mempool_avail_count(e.mp) + (e.fill.producer - e.fill.consumer),
		 POOL_SIZE);
	CHECK_EQ(rte_mempool_avail_count(app), 512);
	CHECK(offered != 0, "fill");

	/* 5 mbufs left: a 60-byte frame gets one, a 9000-byte one cannot. */
	for (held = 0; rte_mempool_avail_count(app) > 5; held++)
		hold[held] = rte_pktmbuf_alloc(app);
	{
		static const uint32_t two[] = { 9000, 60 };

		e.seq_sent = e.seq_seen = 0;
		CHECK_EQ(deliver(&e, two, RTE_DIM(two), 2), 2);
		CHECK_EQ(af_xdp_rx_burst_copy(&e.rxq, bufs, 16), 1);
		CHECK_EQ(bufs[0]->pkt_len, 60);
		rte_pktmbuf_free(bufs[0]);
	}
	CHECK_EQ(e.rxq.stats.copy_nombuf, 1);
	CHECK_EQ(e.rxq.stats.copies, n + 1);
	CHECK_EQ(e.rxq.stats.packets, n + 1);
	rte_pktmbuf_free_bulk(hold, held);
	CHECK_EQ(rte_mempool_avail_count(app), 512);
	CHECK_EQ(rte_mempool_avail_count(e.mp) + (e.fill.producer - e.fill.consumer),
		 POOL_SIZE);
	env_free(&e);
	rte_mempool_free(app);
}

/* The multi-buffer burst, each frame with an RSS hash as the bound program gives it. */
static uint16_t
rx_burst_mb_hash(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	uint16_t n = rx_burst_mb_fn(queue, bufs, nb_pkts), i;

	for (i = 0; i < n; i++) {
		bufs[i]->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
		bufs[i]->hash.rss = 0x5eed0000u + i;
	}
	return n;
}

/*
 * The application's mempool of pinned external buffers (testpmd
 * --mp-alloc=xbuf, the reason a queue gets the driver's UMEM): every
 * mbuf the copy burst hands over, head and segments, still says its
 * buffer is external (RTE_MBUF_F_EXTERNAL, which rte_pktmbuf_reset()
 * keeps), beside the flags of the receive; so does every mbuf of the pool
 * once they are all back.  Without the flag, a clone or attach of the
 * head would take it for a direct mbuf and write a reference count into
 * the pinned memory.  (RTE_MBUF_HAS_PINNED_EXTBUF() reads the pool's
 * flags, not the mbuf's: it cannot tell.)
 */
static void
test_copy_burst_pinned_extbuf(void)
{
	static const uint32_t lens[] = { 60, 1500, 3000 };
	const unsigned int nb_app = 256;
	struct rte_pktmbuf_extmem ext = { .elt_size = APP_ROOM + RTE_PKTMBUF_HEADROOM };
	struct rte_mbuf *bufs[16], *all[256];
	struct rte_mempool *app;
	unsigned int got_all = 0, i;
	struct rx_env e;

	ext.buf_len = RTE_ALIGN_CEIL((size_t)nb_app * ext.elt_size, 4096);
	ext.buf_ptr = rte_zmalloc("rx_copy_ext", ext.buf_len, 4096);
	CHECK(ext.buf_ptr != NULL, "external buffer area");
	if (ext.buf_ptr == NULL)
		return;
	ext.buf_iova = rte_malloc_virt2iova(ext.buf_ptr);
	app = rte_pktmbuf_pool_create_extbuf("rx_copy_ext", nb_app, 0, 0, ext.elt_size,
					     SOCKET_ID_ANY, &ext, 1);
	CHECK(app != NULL, "pinned-extbuf mempool: %s", rte_strerror(rte_errno));
	if (app == NULL) {
		rte_free(ext.buf_ptr);
		return;
	}
	copy_env_init(&e, app, rx_burst_mb_hash);
	CHECK_EQ(deliver(&e, lens, RTE_DIM(lens), 12), 12);
	while (got_all < 12) {
		uint16_t got = af_xdp_rx_burst_copy(&e.rxq, bufs, RTE_DIM(bufs));

		if (got == 0)
			break;
		for (i = 0; i < got; i++) {
			const struct rte_mbuf *seg;

			CHECK(RTE_MBUF_HAS_EXTBUF(bufs[i]) && RTE_MBUF_HAS_PINNED_EXTBUF(bufs[i]),
			      "frame %u: head without RTE_MBUF_F_EXTERNAL (ol_flags 0x%llx)",
			      got_all + i, (unsigned long long)bufs[i]->ol_flags);
			CHECK(bufs[i]->ol_flags & RTE_MBUF_F_RX_RSS_HASH,
			      "frame %u: the receive's RSS hash flag lost", got_all + i);
			CHECK_EQ(bufs[i]->pkt_len, lens[(got_all + i) % RTE_DIM(lens)]);
			for (seg = bufs[i]->next; seg != NULL; seg = seg->next)
				CHECK(RTE_MBUF_HAS_EXTBUF(seg), "frame %u: a segment without it",
				      got_all + i);
		}
		rte_pktmbuf_free_bulk(bufs, got);
		got_all += got;
	}
	CHECK_EQ(got_all, 12);
	CHECK_EQ(rte_mempool_avail_count(app), nb_app);
	CHECK_EQ(rte_pktmbuf_alloc_bulk(app, all, nb_app), 0);
	for (i = 0; i < nb_app; i++)
		CHECK(RTE_MBUF_HAS_EXTBUF(all[i]), "pool mbuf %u lost its external flag", i);
	rte_pktmbuf_free_bulk(all, nb_app);
	env_free(&e);
	rte_mempool_free(app);
	rte_free(ext.buf_ptr);
}

/* A mempool driver that counts its dequeues: a ring, as ring_mp_mc's. */
static unsigned int counted_dequeues;

static int
counting_alloc(struct rte_mempool *mp)
{
	char name[RTE_RING_NAMESIZE];

	snprintf(name, sizeof(name), "cnt_%.20s", mp->name);
	mp->pool_data = rte_ring_create(name, rte_align32pow2(mp->size + 1), mp->socket_id, 0);
	return mp->pool_data == NULL ? -rte_errno : 0;
}

static void
counting_free(struct rte_mempool *mp)
{
	rte_ring_free(mp->pool_data);
}

static int
counting_enqueue(struct rte_mempool *mp, void * const *objs, unsigned int n)
{
	return rte_ring_mp_enqueue_bulk(mp->pool_data, objs, n, NULL) == 0 ? -ENOBUFS : 0;
}

static int
counting_dequeue(struct rte_mempool *mp, void **objs, unsigned int n)
{
	counted_dequeues++;
	return rte_ring_mc_dequeue_bulk(mp->pool_data, objs, n, NULL) == 0 ? -ENOBUFS : 0;
}

static unsigned int
counting_count(const struct rte_mempool *mp)
{
	return rte_ring_count(mp->pool_data);
}

static const struct rte_mempool_ops counting_ops = {
	.name = "afxdp_counting",
	.alloc = counting_alloc,
	.free = counting_free,
	.enqueue = counting_enqueue,
	.dequeue = counting_dequeue,
	.get_count = counting_count,
};

RTE_MEMPOOL_REGISTER_OPS(counting_ops);

/*
 * The copy burst takes the mbufs of frames that fit one in one get of the
 * application's mempool, not one get a frame: 16 such frames, one dequeue
 * (the pool has no cache, so each get is one); a frame of several mbufs
 * takes its own.
 */
static void
test_copy_burst_bulk(void)
{
	static const uint32_t small[] = { 60, 1000 }, big[] = { 3000 };
	struct rte_mempool *app = rte_pktmbuf_pool_create_by_ops("rx_copy_cnt", 256, 0, 0,
								 RTE_PKTMBUF_HEADROOM + APP_ROOM,
								 SOCKET_ID_ANY, "afxdp_counting");
	struct rte_mbuf *bufs[32];
	struct rx_env e;

	CHECK(app != NULL, "counting mempool: %s", rte_strerror(rte_errno));
	if (app == NULL)
		return;
	copy_env_init(&e, app, rx_burst_mb_fn);
	CHECK_EQ(deliver(&e, small, RTE_DIM(small), 16), 16);
	counted_dequeues = 0;
	CHECK_EQ(af_xdp_rx_burst_copy(&e.rxq, bufs, 32), 16);
	CHECK(counted_dequeues == 1, "16 frames of one mbuf each: %u gets of the mempool, not 1",
	      counted_dequeues);
	rte_pktmbuf_free_bulk(bufs, 16);
	e.seq_sent = e.seq_seen = 0;
	CHECK_EQ(deliver(&e, big, RTE_DIM(big), 1), 1);
	CHECK_EQ(af_xdp_rx_burst_copy(&e.rxq, bufs, 32), 1);
	CHECK_EQ(bufs[0]->nb_segs, 3);
	rte_pktmbuf_free(bufs[0]);
	CHECK_EQ(rte_mempool_avail_count(app), 256);
	env_free(&e);
	rte_mempool_free(app);
}

static void
run_single_descriptor_tests(void)
{
	RUN(test_burst_sizes);
	RUN(test_refill_counts);
	RUN(test_burst_limits);
	RUN(test_wraparound);
	RUN(test_empty_and_wakeup);
	RUN(test_mbuf_exhaustion);
}

/*
 * One build of the burst per run (argv[1]: baseline or x86-64-v3), one meson
 * test each: a CPU without x86-64-v3 reports that build's test as skipped.
 */
int
main(int argc, char **argv)
{
	const char *build = argc > 1 ? argv[1] : "baseline";

	if (strcmp(build, "baseline") == 0) {
		rx_burst_fn = af_xdp_rx_burst_baseline;
		rx_burst_mb_fn = af_xdp_rx_burst_multi_buffer_baseline;
		rx_burst_cksum_fn = af_xdp_rx_burst_cksum_baseline;
#ifdef AF_XDP_HAVE_X86_64_V3
	} else if (strcmp(build, "x86-64-v3") == 0) {
		if (!(rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) &&
		      rte_cpu_get_flag_enabled(RTE_CPUFLAG_BMI1) &&
		      rte_cpu_get_flag_enabled(RTE_CPUFLAG_BMI2))) {
			printf("SKIP: this CPU is not x86-64-v3 (AVX2, BMI1, BMI2)\n");
			return UNIT_SKIP;
		}
		rx_burst_fn = af_xdp_rx_burst_x86_64_v3;
		rx_burst_mb_fn = af_xdp_rx_burst_multi_buffer_x86_64_v3;
		rx_burst_cksum_fn = af_xdp_rx_burst_cksum_x86_64_v3;
#endif
	} else {
		fprintf(stderr, "usage: %s [baseline|x86-64-v3]: no build %s here\n", argv[0], build);
		return 2;
	}
	if (sim_eal_init(argv[0]) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	printf("# %s build\n", build);
	RUN(test_initial_fill);
	run_single_descriptor_tests();
	RUN(test_reclaim);
	/* The single-descriptor tests again, through the burst for chains. */
	rx_burst_fn = rx_burst_mb_fn;
	run_single_descriptor_tests();
	/*
	 * Through the bursts that check IPv4 headers: the test frames are not
	 * IPv4 (their ethertype bytes are consecutive), so nothing changes.
	 */
	rx_burst_fn = rx_burst_cksum_fn;
	run_single_descriptor_tests();
	RUN(test_ipv4_cksum);
	RUN(test_mb_chains);
	RUN(test_mb_split);
	RUN(test_mb_mixed_and_wrap);
	RUN(test_mb_exhaustion);
	RUN(test_mb_no_scatter_and_unbind);
	RUN(test_copy_burst);
	RUN(test_copy_burst_pinned_extbuf);
	RUN(test_copy_burst_bulk);
	rte_eal_cleanup();
	return unit_summary();
}
