/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The UMEM is the application's mbuf mempool, registered with the kernel in
 * unaligned-chunk mode: each mbuf's data buffer is one chunk, so a received
 * frame lands directly in the mbuf that will carry it.
 *
 * A mempool that cannot be a UMEM (its data buffers are pinned external
 * memory, or its areas lie apart with memory that is not DPDK's between
 * them) gets one the driver owns instead: a packet mbuf pool of the same
 * chunk geometry in a single memzone (one area; DPDK's shared memory, which
 * a secondary process maps too), from which the kernel receives and sends,
 * and the queues copy once per frame between it and the application's
 * mbufs (af_xdp_rx.c, af_xdp_tx.c).
 *
 * A UMEM is registered on the first socket that uses its mempool; with
 * shared_umem, later sockets of any port of the process share that
 * registration (XDP_SHARED_UMEM) while its first socket stays bound.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_memory.h>
#include <rte_memzone.h>
#include <rte_errno.h>
#include <rte_mempool.h>

#include "af_xdp_csum.h"
#include "af_xdp_umem.h"

struct af_xdp_umem {
	TAILQ_ENTRY(af_xdp_umem) next;	/* in the process-wide list */
	struct rte_mempool *mb_pool;
	struct af_xdp_umem_layout layout;
	int reg_fd;		/* the socket that registered it; -1 once closed */
	unsigned int users;	/* sockets using it */
	bool for_sharing;	/* registered for a port with shared_umem=1 */
	bool shareable;		/* for_sharing and reg_fd bound: others may join */
	bool multi_buffer;	/* bound with XDP_USE_SG */
	uint32_t tx_meta_len;	/* Tx metadata before each frame: 0 or AF_XDP_TX_META_LEN */
	bool own;		/* mb_pool is the driver's (af_xdp_umem_own_pool()) */
};

/* Process-wide UMEMs, so that sockets asking for shared_umem find theirs. */
static TAILQ_HEAD(, af_xdp_umem) umem_list = TAILQ_HEAD_INITIALIZER(umem_list);
static pthread_mutex_t umem_lock = PTHREAD_MUTEX_INITIALIZER;

/* The mempool's memory chunks: from the lowest to the end of the highest. */
struct mem_span {
	uintptr_t start, end;
	size_t bytes;		/* in the chunks: end - start when they leave no gap */
	unsigned int chunks;
};

static void
collect_span(struct rte_mempool *mp __rte_unused, void *opaque,
	     struct rte_mempool_memhdr *memhdr, unsigned int idx)
{
	struct mem_span *span = opaque;
	uintptr_t start = (uintptr_t)memhdr->addr;

	if (idx == 0 || start < span->start)
		span->start = start;
	if (idx == 0 || start + memhdr->len > span->end)
		span->end = start + memhdr->len;
	span->bytes += memhdr->len;
	span->chunks++;
}

/*
 * Whether [start, end) is all DPDK's memory: allocated segments of its
 * memseg lists (hugepages, --no-huge's area, registered external memory),
 * which stay mapped while the process runs.  *hole: the first address that
 * is not.
 */
static bool
dpdk_memory(uintptr_t start, uintptr_t end, uintptr_t *hole)
{
	while (start < end) {
		struct rte_memseg_list *msl = rte_mem_virt2memseg_list((void *)start);
		const struct rte_memseg *ms = msl != NULL ? rte_mem_virt2memseg((void *)start, msl) :
					      NULL;

		/* A free segment of a list is reserved address space only. */
		if (ms == NULL || ms->addr == NULL || start < (uintptr_t)ms->addr ||
		    start >= (uintptr_t)ms->addr + ms->len) {
			*hole = start;
			return false;
		}
		start = (uintptr_t)ms->addr + ms->len;
	}
	return true;
}

/*
 * A mempool in several areas (populated chunk by chunk: a fragmented heap,
 * or IOVA-contiguous pieces of hugepages that are not physically
 * contiguous) can be one UMEM over its whole span when what lies between
 * the areas is DPDK's memory too: the kernel pins it with the rest but
 * writes only the chunks the fill ring offers.  Anything else between them
 * (memory not DPDK's, or none) cannot be registered: 0 or -EINVAL, why in err.
 */
static int
check_span(struct rte_mempool *mp, const struct mem_span *span, char *err, size_t err_len)
{
	uintptr_t hole = 0;

	/* Chunks never overlap: as many bytes as the span, and no gap. */
	if (span->bytes == span->end - span->start || dpdk_memory(span->start, span->end, &hole))
		return 0;
	snprintf(err, err_len,
		 "mempool %s spans %u virtually discontiguous memory chunks (%p to %p) and the memory between them is not all DPDK's (none at %p); a UMEM must be one area: create the pool from DPDK's memory (rte_pktmbuf_pool_create) or in one area",
		 mp->name, span->chunks, (void *)span->start, (void *)span->end, (void *)hole);
	return -EINVAL;
}

/*
 * What every UMEM needs of the mempool its queue receives into, whoever
 * owns the UMEM: a populated packet mbuf pool with room for a chunk.  The
 * chunk's size and the longest frame it holds into layout.
 */
static int
pool_geometry(struct rte_mempool *mp, struct af_xdp_umem_layout *layout, struct mem_span *span,
	      char *err, size_t err_len)
{
	const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uint32_t data_room;

	if (mp->private_data_size < sizeof(struct rte_pktmbuf_pool_private)) {
		snprintf(err, err_len, "mempool %s is not a packet mbuf pool", mp->name);
		return -EINVAL;
	}
	data_room = rte_pktmbuf_data_room_size(mp);
	if (data_room < AF_XDP_CHUNK_MIN) {
		snprintf(err, err_len,
			 "mempool %s has a data room of %u bytes; AF_XDP chunks need at least %u (for example RTE_MBUF_DEFAULT_BUF_SIZE)",
			 mp->name, data_room, AF_XDP_CHUNK_MIN);
		return -EINVAL;
	}
	rte_mempool_mem_iter(mp, collect_span, span);
	if (span->chunks == 0) {
		snprintf(err, err_len, "mempool %s is not populated", mp->name);
		return -EINVAL;
	}
	/* The kernel takes at most a page per chunk. */
	layout->chunk_size = RTE_MIN(data_room, (uint32_t)page);
	layout->max_frame = layout->chunk_size - AF_XDP_PACKET_HEADROOM;
	return 0;
}

/* Why mp cannot be a UMEM itself (af_xdp_umem_owner_of()), in err. */
static enum af_xdp_umem_why
pool_not_umem(struct rte_mempool *mp, const struct mem_span *span, char *err, size_t err_len)
{
	if (rte_pktmbuf_priv_flags(mp) & RTE_PKTMBUF_POOL_F_PINNED_EXT_BUF) {
		snprintf(err, err_len,
			 "mempool %s has pinned external buffers; AF_XDP needs the data buffers inside the mempool: use rte_pktmbuf_pool_create()",
			 mp->name);
		return AF_XDP_UMEM_WHY_PINNED_EXT_BUF;
	}
	if (check_span(mp, span, err, err_len) != 0)
		return AF_XDP_UMEM_WHY_DISCONTIGUOUS;
	return AF_XDP_UMEM_WHY_NONE;
}

/*
 * Where the UMEM lies in the mempool's memory, and how chunk addresses map
 * to mbufs.  Arithmetic on the mempool, and for a pool in several areas a
 * look at DPDK's memory map: no system call.
 */
int
af_xdp_umem_layout(struct rte_mempool *mp, struct af_xdp_umem_layout *layout,
		   char *err, size_t err_len)
{
	const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	struct mem_span span = { 0 };
	uint32_t hdr;

	if (pool_geometry(mp, layout, &span, err, err_len) != 0)
		return -EINVAL;
	if (pool_not_umem(mp, &span, err, err_len) != AF_XDP_UMEM_WHY_NONE)
		return -EINVAL;

	hdr = sizeof(struct rte_mbuf) + rte_pktmbuf_priv_size(mp);
	layout->area = RTE_ALIGN_FLOOR(span.start, page);
	layout->size = RTE_ALIGN_CEIL(span.end, page) - layout->area;
	/* chunk = buf_addr - area = mbuf + hdr - area */
	layout->mbuf_base = layout->area - hdr;
	layout->pool_chunks = span.chunks;
	layout->gap_bytes = span.end - span.start - span.bytes;
	return 0;
}

int
af_xdp_umem_owner_of(struct rte_mempool *mp, enum af_xdp_umem_why *why, char *err,
		     size_t err_len)
{
	struct af_xdp_umem_layout layout;
	struct mem_span span = { 0 };

	*why = AF_XDP_UMEM_WHY_NONE;
	if (pool_geometry(mp, &layout, &span, err, err_len) != 0)
		return -EINVAL;
	*why = pool_not_umem(mp, &span, err, err_len);
	return 0;
}

uint32_t
af_xdp_umem_chunk_frame(struct rte_mempool *mp)
{
	struct af_xdp_umem_layout layout;
	struct mem_span span = { 0 };
	char err[256];

	return pool_geometry(mp, &layout, &span, err, sizeof(err)) == 0 ? layout.max_frame : 0;
}

const char *
af_xdp_umem_why_name(enum af_xdp_umem_why why)
{
	switch (why) {
	case AF_XDP_UMEM_WHY_NONE:
		return "none";
	case AF_XDP_UMEM_WHY_PINNED_EXT_BUF:
		return "pinned-external-buffers";
	case AF_XDP_UMEM_WHY_DISCONTIGUOUS:
		return "discontiguous";
	}
	return "unknown";
}

/* Serial numbers of the driver's UMEM pools, for names unique in the process. */
static uint32_t next_own_serial;

static void
free_own_zone(struct rte_mempool_memhdr *memhdr __rte_unused, void *opaque)
{
	rte_memzone_free(opaque);
}

/*
 * The bytes n objects of total bytes take when none may cross a page of
 * pg bytes (an object larger than a page may).
 */
static size_t
own_zone_len(uint32_t n, size_t total, size_t pg)
{
	size_t per_page = pg / total;

	if (per_page == 0)
		return (size_t)n * total + RTE_CACHE_LINE_SIZE;
	/* And the part of a page the zone may begin in. */
	return ((n + per_page - 1) / per_page + 1) * pg;
}

/*
 * A packet mbuf pool of n mbufs whose chunks hold what app's do (its data
 * room, at most a page: a chunk's most), all in one memzone: one area, so
 * one UMEM.  Its mempool cache serves the fill ring's batches and the
 * copies sent.  NULL with the reason in err.
 */
static struct rte_mempool *
own_pool_create(const struct af_xdp_port *port, struct rte_mempool *app, uint32_t n,
		char *err, size_t err_len)
{
	const uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE);
	const uint16_t data_room =
		(uint16_t)RTE_MIN((uint32_t)rte_pktmbuf_data_room_size(app), page);
	struct rte_pktmbuf_pool_private priv = { .mbuf_data_room_size = data_room };
	const uint32_t cache = AF_XDP_OWN_POOL_CACHE;
	const uint32_t serial = __atomic_fetch_add(&next_own_serial, 1, __ATOMIC_RELAXED);
	const struct rte_memzone *mz;
	struct rte_mempool *mp;
	char name[RTE_MEMZONE_NAMESIZE];
	unsigned int flags = 0;
	size_t len, total;
	int ret;

	/*
	 * The mempool lays its objects so that none crosses a page (a chunk
	 * crossing into a page not contiguous with it is refused by zero-copy
	 * drivers): sized for 2 MB pages.  On smaller pages (--no-huge) that
	 * would waste up to half the zone: objects packed (copy mode and
	 * veth take chunks across pages).
	 */
	total = rte_mempool_calc_obj_size(sizeof(struct rte_mbuf) + data_room, 0, NULL);
	snprintf(name, sizeof(name), "afxdp_umem_%u_%u_mz", port->port_id, serial);
	len = own_zone_len(n, total, RTE_PGSIZE_2M);
	mz = rte_memzone_reserve_aligned(name, len, app->socket_id, 0, RTE_CACHE_LINE_SIZE);
	if (mz != NULL && mz->hugepage_sz < RTE_PGSIZE_2M) {
		rte_memzone_free(mz);
		flags = RTE_MEMPOOL_F_NO_IOVA_CONTIG;
		len = (size_t)n * total + RTE_CACHE_LINE_SIZE;
		mz = rte_memzone_reserve_aligned(name, len, app->socket_id, 0,
						 RTE_CACHE_LINE_SIZE);
	}
	if (mz == NULL) {
		snprintf(err, err_len,
			 "cannot reserve %zu KiB of DPDK memory in one area (memzone %s) for the driver's UMEM: %s; give DPDK more (hugepages, -m/--socket-mem), or the port fewer or shorter queues",
			 len / 1024, name, rte_strerror(rte_errno));
		return NULL;
	}
	snprintf(name, sizeof(name), "afxdp_umem_%u_%u", port->port_id, serial);
	mp = rte_mempool_create_empty(name, n, sizeof(struct rte_mbuf) + data_room, cache,
				      sizeof(priv), app->socket_id, flags);
	if (mp == NULL) {
		snprintf(err, err_len, "cannot create mempool %s: %s", name,
			 rte_strerror(rte_errno));
		rte_memzone_free(mz);
		return NULL;
	}
	ret = rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(), NULL);
	if (ret != 0) {
		snprintf(err, err_len, "mempool %s: no mempool ops: %s", name, strerror(-ret));
		rte_memzone_free(mz);
		goto err_free;
	}
	rte_pktmbuf_pool_init(mp, &priv);
	ret = rte_mempool_populate_iova(mp, mz->addr, RTE_BAD_IOVA, mz->len, free_own_zone,
					(void *)(uintptr_t)mz);
	if (ret < 0 || (uint32_t)ret != n) {
		snprintf(err, err_len, "memzone %s holds %d of %u mbufs", mz->name, ret, n);
		if (ret < 0)
			rte_memzone_free(mz);
		goto err_free;
	}
	rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);
	return mp;
err_free:
	rte_mempool_free(mp);
	return NULL;
}

/* RLIMIT_MEMLOCK as a message shows it: "8192 KiB" or "unlimited". */
static const char *
memlock_limit(char *buf, size_t len)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0)
		snprintf(buf, len, "unknown");
	else if (rl.rlim_cur == RLIM_INFINITY)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%llu KiB", (unsigned long long)rl.rlim_cur / 1024);
	return buf;
}

/*
 * The kernel pins a UMEM's pages and, unless the process has CAP_IPC_LOCK,
 * charges them to its user's locked memory against RLIMIT_MEMLOCK: over
 * the limit, XDP_UMEM_REG fails with ENOBUFS ("No buffer space
 * available"), which names neither.
 */
static void
explain_refusal(const struct af_xdp_port *port, const struct af_xdp_umem *umem, int err)
{
	const size_t kib = umem->layout.size / 1024;
	char limit[32];

	if (err == ENOBUFS) {
		AF_XDP_PORT_LOG(ERR, port,
				"cannot register mempool %s (%zu KiB) as a UMEM: %s: its pages are locked memory, and without CAP_IPC_LOCK this process may lock only RLIMIT_MEMLOCK = %s (counted for all UMEMs of its user; each queue that registers the mempool counts it again). Run as root or with CAP_IPC_LOCK, or raise the limit to at least %zu KiB (ulimit -l %zu; LimitMEMLOCK= for a systemd service; --ulimit memlock= for a container), or give the port a smaller mempool",
				umem->mb_pool->name, kib, strerror(err),
				memlock_limit(limit, sizeof(limit)), kib, kib);
		return;
	}
	AF_XDP_PORT_LOG(ERR, port,
			"cannot register mempool %s (%zu KiB at %p, %u-byte chunks) as a UMEM: %s%s",
			umem->mb_pool->name, kib, (void *)umem->layout.area,
			umem->layout.chunk_size, strerror(err),
			err == EINVAL ? " (a kernel without unaligned chunks, before 5.4?)" :
			err == ENOMEM ? " (the kernel could not pin its pages)" : "");
}

static int
umem_reg(int fd, const struct af_xdp_umem *umem, uint32_t tx_meta_len)
{
	struct af_xdp_umem_reg reg;

	/* Every byte the kernel reads is ours: no padding left to chance. */
	memset(&reg, 0, sizeof(reg));
	reg.addr = umem->layout.area;
	reg.len = umem->layout.size;
	reg.chunk_size = umem->layout.chunk_size;
	reg.flags = XDP_UMEM_UNALIGNED_CHUNK_FLAG;
	if (tx_meta_len != 0) {
		reg.flags |= XDP_UMEM_TX_METADATA_LEN;
		reg.tx_metadata_len = tx_meta_len;
	}
	return setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &reg, sizeof(reg)) == 0 ? 0 : -errno;
}

/*
 * Registered with room for Tx metadata in front of every frame (the L4
 * checksums left to the kernel) unless tx_csum=sw.  A kernel that refuses
 * it with EINVAL (before 6.11: XDP_UMEM_TX_METADATA_LEN unknown; 6.8 to
 * 6.10 would take the length without the flag, but no target runs them)
 * gets the UMEM without: the driver computes the checksums then.
 */
static int
register_umem(const struct af_xdp_port *port, int fd, struct af_xdp_umem *umem)
{
	int err = -EINVAL;

	umem->tx_meta_len = 0;
	if (port->args.tx_csum != AF_XDP_TX_CSUM_SW) {
		err = umem_reg(fd, umem, AF_XDP_TX_META_LEN);
		if (err == 0)
			umem->tx_meta_len = AF_XDP_TX_META_LEN;
	}
	if (err == -EINVAL)
		err = umem_reg(fd, umem, 0);
	if (err == 0)
		return 0;
	explain_refusal(port, umem, -err);
	return err;
}

static struct af_xdp_umem *
find_shareable(struct rte_mempool *mp)
{
	struct af_xdp_umem *umem;

	TAILQ_FOREACH(umem, &umem_list, next)
		if (umem->mb_pool == mp && umem->shareable)
			return umem;
	return NULL;
}

static struct af_xdp_umem *
umem_new(const struct af_xdp_port *port, struct rte_mempool *mp, int fd, uint32_t own_chunks)
{
	struct af_xdp_umem *umem;
	char err[512];

	umem = rte_zmalloc_socket("af_xdp_umem", sizeof(*umem), 0, mp->socket_id);
	if (umem == NULL) {
		AF_XDP_PORT_LOG(ERR, port, "out of memory for a UMEM");
		return NULL;
	}
	if (own_chunks != 0) {
		umem->own = true;
		mp = own_pool_create(port, mp, own_chunks, err, sizeof(err));
		if (mp == NULL) {
			AF_XDP_PORT_LOG(ERR, port, "%s", err);
			rte_free(umem);
			return NULL;
		}
	}
	if (af_xdp_umem_layout(mp, &umem->layout, err, sizeof(err)) != 0) {
		AF_XDP_PORT_LOG(ERR, port, "%s", err);
		goto err_free;
	}
	umem->mb_pool = mp;
	umem->reg_fd = fd;
	/* The driver's UMEM serves its one socket: nothing to share. */
	umem->for_sharing = port->args.shared_umem && !umem->own;
	if (register_umem(port, fd, umem) != 0)
		goto err_free;
	if (umem->layout.gap_bytes != 0)
		AF_XDP_PORT_LOG(INFO, port,
				"mempool %s lies in separate areas: its UMEM spans them, %zu KiB, %zu KiB of which DPDK memory between them",
				mp->name, umem->layout.size / 1024, umem->layout.gap_bytes / 1024);
	return umem;
err_free:
	if (umem->own)
		rte_mempool_free(mp);
	rte_free(umem);
	return NULL;
}

struct af_xdp_umem *
af_xdp_umem_join(const struct af_xdp_port *port, struct rte_mempool *mp, int fd,
		 uint32_t own_chunks, bool *shared)
{
	struct af_xdp_umem *umem = NULL;

	pthread_mutex_lock(&umem_lock);
	if (port->args.shared_umem && own_chunks == 0)
		umem = find_shareable(mp);
	*shared = umem != NULL;
	if (umem == NULL) {
		umem = umem_new(port, mp, fd, own_chunks);
		if (umem != NULL)
			TAILQ_INSERT_TAIL(&umem_list, umem, next);
	}
	if (umem != NULL)
		umem->users++;
	pthread_mutex_unlock(&umem_lock);
	return umem;
}

void
af_xdp_umem_bound(struct af_xdp_umem *umem, int fd, bool multi_buffer)
{
	pthread_mutex_lock(&umem_lock);
	if (umem->reg_fd == fd) {
		umem->shareable = umem->for_sharing;
		umem->multi_buffer = multi_buffer;
	}
	pthread_mutex_unlock(&umem_lock);
}

bool
af_xdp_umem_multi_buffer(const struct af_xdp_umem *umem)
{
	return umem->multi_buffer;
}

void
af_xdp_umem_leave(struct af_xdp_umem *umem, int fd)
{
	pthread_mutex_lock(&umem_lock);
	if (umem->reg_fd == fd) {
		/* No live descriptor left to share it through. */
		umem->reg_fd = -1;
		umem->shareable = false;
	}
	if (--umem->users == 0) {
		TAILQ_REMOVE(&umem_list, umem, next);
		rte_free(umem);
	}
	pthread_mutex_unlock(&umem_lock);
}

const struct af_xdp_umem_layout *
af_xdp_umem_layout_of(const struct af_xdp_umem *umem)
{
	return &umem->layout;
}

struct rte_mempool *
af_xdp_umem_pool(const struct af_xdp_umem *umem)
{
	return umem->mb_pool;
}

struct rte_mempool *
af_xdp_umem_own_pool(const struct af_xdp_umem *umem)
{
	return umem->own ? umem->mb_pool : NULL;
}

uint32_t
af_xdp_umem_tx_meta_len(const struct af_xdp_umem *umem)
{
	return umem->tx_meta_len;
}

int
af_xdp_umem_fd(const struct af_xdp_umem *umem)
{
	return umem->reg_fd;
}
