/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * af_xdp_umem_layout(): how a mempool maps onto a UMEM, and each reason a
 * mempool cannot be one, with a message that names the pool and the fix.
 * EAL for mempools only; no socket.
 */

#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "af_xdp_umem.h"
#include "ring_sim.h"
#include "unit_test.h"

#define NB_MBUFS 512

static void
expect_refusal(struct rte_mempool *mp, const char *needle)
{
	struct af_xdp_umem_layout layout;
	char err[512] = "";

	CHECK(mp != NULL, "mempool for '%s'", needle);
	if (mp == NULL)
		return;
	CHECK(af_xdp_umem_layout(mp, &layout, err, sizeof(err)) == -EINVAL,
	      "%s accepted", mp->name);
	CHECK(strstr(err, mp->name) != NULL, "message '%s' does not name %s", err, mp->name);
	CHECK(strstr(err, needle) != NULL, "message '%s' lacks '%s'", err, needle);
	rte_mempool_free(mp);
}

static void
test_layout(void)
{
	struct rte_mempool *mp = rte_pktmbuf_pool_create("umem_ok", NB_MBUFS, 0, 0,
							 RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	struct af_xdp_umem_layout layout;
	struct rte_mbuf *m;
	char err[256];

	CHECK(mp != NULL, "mempool");
	CHECK(af_xdp_umem_layout(mp, &layout, err, sizeof(err)) == 0, "%s", err);
	CHECK(layout.area % page == 0 && layout.size % page == 0, "whole pages");
	CHECK_EQ(layout.chunk_size, RTE_MBUF_DEFAULT_DATAROOM + RTE_PKTMBUF_HEADROOM);
	CHECK_EQ(layout.max_frame, layout.chunk_size - AF_XDP_PACKET_HEADROOM);
	/* An mbuf's chunk is its data buffer, inside the area; and back. */
	m = rte_pktmbuf_alloc(mp);
	CHECK((uintptr_t)m->buf_addr >= layout.area &&
	      (uintptr_t)m->buf_addr + layout.chunk_size <= layout.area + layout.size, "inside");
	CHECK_EQ(layout.mbuf_base + ((uintptr_t)m->buf_addr - layout.area), (uintptr_t)m);
	rte_pktmbuf_free(m);
	rte_mempool_free(mp);

	/* A data room beyond a page: the kernel takes a page per chunk. */
	mp = rte_pktmbuf_pool_create("umem_big", NB_MBUFS, 0, 0, 2 * page, SOCKET_ID_ANY);
	CHECK(mp != NULL && af_xdp_umem_layout(mp, &layout, err, sizeof(err)) == 0, "big");
	CHECK_EQ(layout.chunk_size, page);
	rte_mempool_free(mp);
}

static void
test_not_packet_pool(void)
{
	expect_refusal(rte_mempool_create("umem_plain", NB_MBUFS, 2048, 0, 0, NULL, NULL, NULL,
					  NULL, SOCKET_ID_ANY, 0), "not a packet mbuf pool");
}

static void
test_small_data_room(void)
{
	expect_refusal(rte_pktmbuf_pool_create("umem_small", NB_MBUFS, 0, 0, 1024,
					       SOCKET_ID_ANY), "at least 2048");
}

static void
test_pinned_external(void)
{
	struct rte_pktmbuf_extmem ext = {
		.buf_len = 2 * 1024 * 1024,
		.elt_size = RTE_MBUF_DEFAULT_BUF_SIZE,
	};

	ext.buf_ptr = mmap(NULL, ext.buf_len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(ext.buf_ptr != MAP_FAILED, "mmap");
	ext.buf_iova = RTE_BAD_IOVA;
	expect_refusal(rte_pktmbuf_pool_create_extbuf("umem_pinned", NB_MBUFS, 0, 0,
						      ext.elt_size, SOCKET_ID_ANY, &ext, 1),
		       "pinned external buffers");
	munmap(ext.buf_ptr, ext.buf_len);
}

/* A packet mbuf pool with no memory yet. */
static struct rte_mempool *
empty_packet_pool(const char *name)
{
	struct rte_mempool *mp = rte_mempool_create_empty(name, NB_MBUFS,
		sizeof(struct rte_mbuf) + RTE_MBUF_DEFAULT_BUF_SIZE, 0,
		sizeof(struct rte_pktmbuf_pool_private), SOCKET_ID_ANY, 0);

	if (mp == NULL)
		return NULL;
	rte_mempool_set_ops_byname(mp, "ring_mp_mc", NULL);
	rte_pktmbuf_pool_init(mp, NULL);
	return mp;
}

static void
test_not_populated(void)
{
	expect_refusal(empty_packet_pool("umem_empty"), "not populated");
}

static void
no_free(struct rte_mempool_memhdr *memhdr __rte_unused, void *opaque __rte_unused)
{
}

/* Two areas with a hole between them: the UMEM must be one area. */
static void
test_discontiguous(void)
{
	struct rte_mempool *mp = empty_packet_pool("umem_holes");
	size_t half = (size_t)rte_mempool_calc_obj_size(mp->elt_size, mp->flags, NULL) *
		      NB_MBUFS / 2 + 4096;
	size_t len = 2 * half + 65536;
	char *area = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);

	CHECK(area != MAP_FAILED, "mmap");
	CHECK(rte_mempool_populate_virt(mp, area, half, 4096, no_free, NULL) > 0, "first");
	CHECK(rte_mempool_populate_virt(mp, area + half + 65536, half, 4096, no_free,
					NULL) > 0, "second");
	expect_refusal(mp, "discontiguous");
	munmap(area, len);
}

int
main(int argc __rte_unused, char **argv)
{
	if (sim_eal_init(argv[0]) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	RUN(test_layout);
	RUN(test_not_packet_pool);
	RUN(test_small_data_room);
	RUN(test_pinned_external);
	RUN(test_not_populated);
	RUN(test_discontiguous);
	rte_eal_cleanup();
	return unit_summary();
}
