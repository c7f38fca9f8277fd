/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * af_xdp_umem_layout(): how a mempool maps onto a UMEM, and each reason a
 * mempool cannot be one, with a message that names the pool and the fix.
 * And the registration itself: struct af_xdp_umem_reg against the kernel's
 * layout, and a UMEM registered on a real AF_XDP socket, every byte the
 * kernel reads as the driver meant it.
 */

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include <rte_mbuf.h>
#include <rte_memzone.h>
#include <rte_mempool.h>

#include "af_xdp_csum.h"
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

/*
 * Two areas of memory not DPDK's with a gap between them: nothing says the
 * gap stays mapped, so the pool cannot be one UMEM.
 */
/*
 * mp populated over two halves of one anonymous mapping (memory not DPDK's)
 * with 64 KiB between them that it does not use; the mapping, *len bytes.
 */
static char *
populate_apart(struct rte_mempool *mp, size_t *len)
{
	size_t half = (size_t)rte_mempool_calc_obj_size(mp->elt_size, mp->flags, NULL) *
		      NB_MBUFS / 2 + 4096;
	char *area;

	*len = 2 * half + 65536;
	area = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(area != MAP_FAILED, "mmap");
	if (area == MAP_FAILED)
		return NULL;
	CHECK(rte_mempool_populate_virt(mp, area, half, 4096, no_free, NULL) > 0, "first");
	CHECK(rte_mempool_populate_virt(mp, area + half + 65536, half, 4096, no_free,
					NULL) > 0, "second");
	return area;
}

static void
test_discontiguous(void)
{
	struct rte_mempool *mp = empty_packet_pool("umem_holes");
	size_t len;
	char *area = populate_apart(mp, &len);

	expect_refusal(mp, "discontiguous");
	if (area != NULL)
		munmap(area, len);
}

/*
 * struct xdp_umem_reg as include/uapi/linux/if_xdp.h has it on 6.8 to
 * 6.18 (tx_metadata_len, 6.8), whatever the system's header says.
 */
static void
test_reg_layout(void)
{
	CHECK_EQ(offsetof(struct af_xdp_umem_reg, addr), 0);
	CHECK_EQ(offsetof(struct af_xdp_umem_reg, len), 8);
	CHECK_EQ(offsetof(struct af_xdp_umem_reg, chunk_size), 16);
	CHECK_EQ(offsetof(struct af_xdp_umem_reg, headroom), 20);
	CHECK_EQ(offsetof(struct af_xdp_umem_reg, flags), 24);
	CHECK_EQ(offsetof(struct af_xdp_umem_reg, tx_metadata_len), 28);
	CHECK_EQ(sizeof(struct af_xdp_umem_reg), 32);
	/* The fields the system's (older) header has sit where it has them. */
	CHECK_EQ(offsetof(struct xdp_umem_reg, flags), 24);
	CHECK(sizeof(struct xdp_umem_reg) <= sizeof(struct af_xdp_umem_reg), "longer header");
}

/* What the driver last passed to XDP_UMEM_REG. */
static struct {
	unsigned int calls;
	socklen_t optlen;
	unsigned char bytes[64];
} umem_reg_seen;

/*
 * The driver's setsockopt() lands here (the test's definition comes before
 * the C library's): XDP_UMEM_REG's bytes are recorded, and every call goes
 * on to the kernel unchanged.
 */
int
setsockopt(int fd, int level, int optname, const void *optval, socklen_t optlen)
{
	if (level == SOL_XDP && optname == XDP_UMEM_REG) {
		umem_reg_seen.calls++;
		umem_reg_seen.optlen = optlen;
		memset(umem_reg_seen.bytes, 0, sizeof(umem_reg_seen.bytes));
		memcpy(umem_reg_seen.bytes, optval, RTE_MIN(optlen, sizeof(umem_reg_seen.bytes)));
	}
	return (int)syscall(SYS_setsockopt, fd, level, optname, optval, optlen);
}

/*
 * Garbage where the next calls will have their stack frames, as a caller
 * before them may leave it: a byte the driver does not set reads 0xa5.
 */
static void __rte_noinline
dirty_stack(void)
{
	volatile unsigned char junk[16384];
	size_t i;

	for (i = 0; i < sizeof(junk); i++)
		junk[i] = 0xa5;
}

/* Register mp on a new AF_XDP socket, as the driver does; false: no AF_XDP here. */
static bool
register_on_new_socket(struct rte_mempool *mp, const struct af_xdp_port *port)
{
	struct af_xdp_umem_reg reg;
	const struct af_xdp_umem_layout *layout;
	struct af_xdp_umem *umem;
	uint32_t fill = AF_XDP_RING_MIN, tx_meta_len = 0;
	bool shared = true;
	int fd = socket(AF_XDP, SOCK_RAW, 0);

	if (fd < 0) {
		printf("     (no AF_XDP socket here: %s; registration not tried)\n",
		       strerror(errno));
		return false;
	}
	memset(&umem_reg_seen, 0, sizeof(umem_reg_seen));
	dirty_stack();
	umem = af_xdp_umem_join(port, mp, fd, 0, &shared);
	CHECK(umem != NULL, "registration refused");
	CHECK(!shared, "a first registration is not shared");
	CHECK_EQ(umem_reg_seen.optlen, sizeof(struct af_xdp_umem_reg));
	memcpy(&reg, umem_reg_seen.bytes, sizeof(reg));
	if (umem != NULL) {
		layout = af_xdp_umem_layout_of(umem);
		CHECK_EQ(reg.addr, layout->area);
		CHECK_EQ(reg.len, layout->size);
		CHECK_EQ(reg.chunk_size, layout->chunk_size);
		tx_meta_len = af_xdp_umem_tx_meta_len(umem);
	}
	CHECK_EQ(reg.headroom, 0);
	/*
	 * Tx metadata unless tx_csum=sw: taken at once (6.11+), or refused
	 * and registered again without (the last call's bytes are seen).
	 */
	if (tx_meta_len != 0) {
		CHECK(port->args.tx_csum != AF_XDP_TX_CSUM_SW, "Tx metadata with tx_csum=sw");
		CHECK_EQ(umem_reg_seen.calls, 1);
		CHECK_EQ(reg.flags, XDP_UMEM_UNALIGNED_CHUNK_FLAG | XDP_UMEM_TX_METADATA_LEN);
		CHECK_EQ(reg.tx_metadata_len, AF_XDP_TX_META_LEN);
	} else {
		CHECK_EQ(umem_reg_seen.calls, port->args.tx_csum == AF_XDP_TX_CSUM_SW ? 1u : 2u);
		CHECK_EQ(reg.flags, XDP_UMEM_UNALIGNED_CHUNK_FLAG);
		/* 6.8-6.10 would reserve this much Tx metadata per chunk, or refuse it. */
		CHECK_EQ(reg.tx_metadata_len, 0);
	}
	printf("     (tx_csum=%s: Tx metadata %u bytes)\n",
	       port->args.tx_csum == AF_XDP_TX_CSUM_SW ? "sw" : "auto", tx_meta_len);

	/*
	 * The kernel holds it: a socket takes a fill ring only with a UMEM,
	 * and a second registration is refused as one too many.  The chunk
	 * size, 2176, is no power of two: only the unaligned-chunk flag, read
	 * from the struct's fifth field, let it through.
	 */
	CHECK(syscall(SYS_setsockopt, fd, SOL_XDP, XDP_UMEM_FILL_RING, &fill,
		      sizeof(fill)) == 0, "fill ring: %s", strerror(errno));
	CHECK(syscall(SYS_setsockopt, fd, SOL_XDP, XDP_UMEM_REG, &reg, sizeof(reg)) == -1 &&
	      errno == EBUSY, "second registration: %s", strerror(errno));
	if (umem != NULL)
		af_xdp_umem_leave(umem, fd);
	close(fd);
	return true;
}

/*
 * A pool in two of DPDK's memzones with a third, not the pool's, between
 * them (what a fragmented heap gives): one UMEM over the span, which the
 * kernel takes (a real socket, where there is AF_XDP), every mbuf's chunk
 * inside it.
 */
static void
test_span_of_dpdk_memory(void)
{
	struct rte_mempool *mp = empty_packet_pool("umem_span");
	size_t half = (size_t)rte_mempool_calc_obj_size(mp->elt_size, mp->flags, NULL) *
		      NB_MBUFS / 2 + 4096;
	const struct rte_memzone *a = rte_memzone_reserve("umem_span_a", half, SOCKET_ID_ANY, 0);
	const struct rte_memzone *other = rte_memzone_reserve("umem_span_other", 65536,
							      SOCKET_ID_ANY, 0);
	const struct rte_memzone *b = rte_memzone_reserve("umem_span_b", half, SOCKET_ID_ANY, 0);
	struct af_xdp_port *port = calloc(1, sizeof(*port));
	struct af_xdp_umem_layout layout;
	char err[512] = "";

	CHECK(a != NULL && other != NULL && b != NULL && port != NULL, "memzones and port");
	if (a == NULL || other == NULL || b == NULL || port == NULL)
		goto out;
	CHECK(rte_mempool_populate_iova(mp, a->addr, a->iova, a->len, no_free, NULL) > 0, "a");
	CHECK(rte_mempool_populate_iova(mp, b->addr, b->iova, b->len, no_free, NULL) > 0, "b");
	CHECK(af_xdp_umem_layout(mp, &layout, err, sizeof(err)) == 0, "refused: %s", err);
	CHECK_EQ(layout.pool_chunks, 2);
	CHECK(layout.gap_bytes >= other->len, "gap %zu bytes, the other zone %zu", layout.gap_bytes,
	      other->len);
	CHECK(layout.area <= RTE_MIN((uintptr_t)a->addr, (uintptr_t)b->addr) &&
	      layout.area + layout.size >= RTE_MAX((uintptr_t)a->addr_64 + a->len,
						   (uintptr_t)b->addr_64 + b->len),
	      "the UMEM does not cover both areas");
	snprintf(port->name, sizeof(port->name), "umem_span_test");
	register_on_new_socket(mp, port);
out:
	free(port);
	rte_mempool_free(mp);
	rte_memzone_free(a);
	rte_memzone_free(other);
	rte_memzone_free(b);
}

/*
 * A pool over two separate mmap areas, nothing of DPDK's between them,
 * cannot be a UMEM itself: the driver owns one instead, a pool of the same
 * chunks in one memzone, which a real socket registers (where there is
 * AF_XDP).  The application's pool is untouched: the driver's is another.
 */
static void
test_own_umem(void)
{
	struct rte_mempool *mp = empty_packet_pool("umem_own_app");
	size_t len;
	char *area = populate_apart(mp, &len);
	struct af_xdp_port *port = calloc(1, sizeof(*port));
	const struct af_xdp_umem_layout *layout;
	struct af_xdp_umem_layout app_layout;
	struct rte_mempool *own = NULL;
	struct af_xdp_umem_reg reg;
	enum af_xdp_umem_why why;
	struct af_xdp_umem *umem;
	bool shared = true;
	char err[512] = "";
	int fd;

	CHECK(area != NULL && port != NULL, "mmap and port");
	CHECK(af_xdp_umem_owner_of(mp, &why, err, sizeof(err)) == 0, "refused: %s", err);
	CHECK_EQ(why, AF_XDP_UMEM_WHY_DISCONTIGUOUS);
	CHECK(strstr(err, "discontiguous") != NULL, "reason '%s'", err);
	CHECK(strcmp(af_xdp_umem_why_name(why), "discontiguous") == 0, "name");
	CHECK_EQ(af_xdp_umem_chunk_frame(mp),
		 RTE_MBUF_DEFAULT_BUF_SIZE - AF_XDP_PACKET_HEADROOM);
	snprintf(port->name, sizeof(port->name), "umem_own_test");
	port->port_id = 7;
	fd = socket(AF_XDP, SOCK_RAW, 0);
	if (fd < 0) {
		printf("     (no AF_XDP socket here: %s; registration not tried)\n",
		       strerror(errno));
		goto out;
	}
	memset(&umem_reg_seen, 0, sizeof(umem_reg_seen));
	umem = af_xdp_umem_join(port, mp, fd, NB_MBUFS, &shared);
	CHECK(umem != NULL, "the driver's UMEM refused");
	if (umem == NULL) {
		close(fd);
		goto out;
	}
	CHECK(!shared, "the driver's UMEM is never shared");
	own = af_xdp_umem_own_pool(umem);
	CHECK(own != NULL && own != mp && af_xdp_umem_pool(umem) == own, "the driver's pool");
	CHECK_EQ(rte_mempool_avail_count(own), NB_MBUFS);
	CHECK_EQ(rte_pktmbuf_data_room_size(own), rte_pktmbuf_data_room_size(mp));
	layout = af_xdp_umem_layout_of(umem);
	CHECK_EQ(layout->pool_chunks, 1);
	CHECK_EQ(layout->gap_bytes, 0);
	CHECK_EQ(layout->max_frame, af_xdp_umem_chunk_frame(mp));
	CHECK(af_xdp_umem_layout(own, &app_layout, err, sizeof(err)) == 0, "%s", err);
	memcpy(&reg, umem_reg_seen.bytes, sizeof(reg));
	CHECK(umem_reg_seen.calls >= 1, "registered");
	CHECK_EQ(reg.addr, layout->area);
	CHECK_EQ(reg.len, layout->size);
	CHECK_EQ(reg.chunk_size, layout->chunk_size);
	/* The kernel holds it: a second registration is refused. */
	CHECK(syscall(SYS_setsockopt, fd, SOL_XDP, XDP_UMEM_REG, &reg, sizeof(reg)) == -1 &&
	      errno == EBUSY, "second registration: %s", strerror(errno));
	/* The driver's pool outlives its UMEM: its owner frees it. */
	af_xdp_umem_leave(umem, fd);
	close(fd);
	CHECK(rte_mempool_lookup(own->name) == own, "freed with the UMEM");
	rte_mempool_free(own);
out:
	free(port);
	rte_mempool_free(mp);
	if (area != NULL)
		munmap(area, len);
}

/* Pinned external buffers: the driver's UMEM too, and why. */
static void
test_own_umem_pinned(void)
{
	struct rte_pktmbuf_extmem ext = {
		.buf_len = 2 * 1024 * 1024,
		.elt_size = RTE_MBUF_DEFAULT_BUF_SIZE,
	};
	struct rte_mempool *mp;
	enum af_xdp_umem_why why;
	char err[512] = "";

	ext.buf_ptr = mmap(NULL, ext.buf_len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ext.buf_iova = RTE_BAD_IOVA;
	mp = rte_pktmbuf_pool_create_extbuf("umem_own_pinned", NB_MBUFS, 0, 0, ext.elt_size,
					    SOCKET_ID_ANY, &ext, 1);
	CHECK(mp != NULL, "pool");
	CHECK(af_xdp_umem_owner_of(mp, &why, err, sizeof(err)) == 0, "refused: %s", err);
	CHECK_EQ(why, AF_XDP_UMEM_WHY_PINNED_EXT_BUF);
	CHECK(strcmp(af_xdp_umem_why_name(why), "pinned-external-buffers") == 0, "name");
	rte_mempool_free(mp);
	munmap(ext.buf_ptr, ext.buf_len);
}

static void
test_register(void)
{
	struct rte_mempool *mp = rte_pktmbuf_pool_create("umem_reg", NB_MBUFS, 0, 0,
							 RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	struct af_xdp_port *port = calloc(1, sizeof(*port));

	CHECK(mp != NULL && port != NULL, "mempool and port");
	if (mp == NULL || port == NULL)
		goto out;
	snprintf(port->name, sizeof(port->name), "umem_reg_test");
	/*
	 * Twice: the first calls into shared libraries bind their symbols,
	 * which writes over the dirtied stack (unless LD_BIND_NOW); the
	 * second registration meets the garbage.
	 */
	if (register_on_new_socket(mp, port) && register_on_new_socket(mp, port)) {
		/* And without Tx metadata, as tx_csum=sw asks. */
		port->args.tx_csum = AF_XDP_TX_CSUM_SW;
		register_on_new_socket(mp, port);
	}
out:
	free(port);
	rte_mempool_free(mp);
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
	RUN(test_reg_layout);
	RUN(test_register);
	RUN(test_span_of_dpdk_memory);
	RUN(test_own_umem);
	RUN(test_own_umem_pinned);
	rte_eal_cleanup();
	return unit_summary();
}
