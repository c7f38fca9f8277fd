/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The UMEM is the application's mbuf mempool, registered with the kernel in
 * unaligned-chunk mode: each mbuf's data buffer is one chunk, so a received
 * frame lands directly in the mbuf that will carry it.
 *
 * This file also creates and destroys the AF_XDP sockets: registration,
 * ring sizing and mapping, bind, and the orderly teardown that gives back to
 * the mempool every mbuf the kernel no longer holds.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "af_xdp.h"

#ifndef AF_XDP
#define AF_XDP 44
#endif
#ifndef SOL_XDP
#define SOL_XDP 283
#endif

/* How long bind() may say EBUSY for a queue our own closed socket is leaving. */
#define AF_XDP_BIND_BUSY_WAIT_US 5000
#define AF_XDP_BIND_BUSY_TRIES 200

/* Process-wide UMEMs, so that sockets asking for shared_umem find theirs. */
static TAILQ_HEAD(, af_xdp_umem) umem_list = TAILQ_HEAD_INITIALIZER(umem_list);
static pthread_mutex_t umem_lock = PTHREAD_MUTEX_INITIALIZER;

struct mem_span {
	uintptr_t start, end;
	unsigned int chunks;
	bool contiguous;
};

static void
collect_span(struct rte_mempool *mp __rte_unused, void *opaque,
	     struct rte_mempool_memhdr *memhdr, unsigned int idx)
{
	struct mem_span *span = opaque;
	uintptr_t start = (uintptr_t)memhdr->addr;

	if (idx == 0) {
		span->start = start;
		span->end = start + memhdr->len;
		span->contiguous = true;
	} else if (start == span->end) {
		span->end += memhdr->len;
	} else {
		span->contiguous = false;
	}
	span->chunks++;
}

/*
 * Where the UMEM lies in the mempool's memory, and how chunk addresses map
 * to mbufs.  Pure arithmetic on the mempool: no system call.
 */
int
af_xdp_umem_layout(struct rte_mempool *mp, struct af_xdp_umem_layout *layout,
		   char *err, size_t err_len)
{
	const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	struct mem_span span = { 0 };
	uint32_t data_room, hdr;

	if (mp->private_data_size < sizeof(struct rte_pktmbuf_pool_private)) {
		snprintf(err, err_len, "mempool %s is not a packet mbuf pool", mp->name);
		return -EINVAL;
	}
	if (rte_pktmbuf_priv_flags(mp) & RTE_PKTMBUF_POOL_F_PINNED_EXT_BUF) {
		snprintf(err, err_len,
			 "mempool %s has pinned external buffers; AF_XDP needs the data buffers inside the mempool: use rte_pktmbuf_pool_create()",
			 mp->name);
		return -EINVAL;
	}
	data_room = rte_pktmbuf_data_room_size(mp);
	if (data_room < AF_XDP_CHUNK_MIN) {
		snprintf(err, err_len,
			 "mempool %s has a data room of %u bytes; AF_XDP chunks need at least %u (for example RTE_MBUF_DEFAULT_BUF_SIZE)",
			 mp->name, data_room, AF_XDP_CHUNK_MIN);
		return -EINVAL;
	}
	rte_mempool_mem_iter(mp, collect_span, &span);
	if (span.chunks == 0) {
		snprintf(err, err_len, "mempool %s is not populated", mp->name);
		return -EINVAL;
	}
	if (!span.contiguous) {
		snprintf(err, err_len,
			 "mempool %s spans %u virtually discontiguous memory chunks; a UMEM must be one area: create the pool with enough contiguous memory (e.g. larger hugepages, or --no-huge)",
			 mp->name, span.chunks);
		return -EINVAL;
	}

	hdr = sizeof(struct rte_mbuf) + rte_pktmbuf_priv_size(mp);
	layout->area = RTE_ALIGN_FLOOR(span.start, page);
	layout->size = RTE_ALIGN_CEIL(span.end, page) - layout->area;
	/* chunk = buf_addr - area = mbuf + hdr - area */
	layout->mbuf_base = layout->area - hdr;
	/* The kernel takes at most a page per chunk. */
	layout->chunk_size = RTE_MIN(data_room, (uint32_t)page);
	layout->max_frame = layout->chunk_size - AF_XDP_PACKET_HEADROOM;
	return 0;
}

static struct af_xdp_umem *
umem_find_shareable(struct rte_mempool *mp)
{
	struct af_xdp_umem *umem;

	TAILQ_FOREACH(umem, &umem_list, next)
		if (umem->mb_pool == mp && umem->shareable && umem->users > 0)
			return umem;
	return NULL;
}

static struct af_xdp_umem *
umem_get(struct af_xdp_port *port, struct rte_mempool *mp, bool *is_new)
{
	struct af_xdp_umem *umem = NULL;
	char err[256];

	if (port->args.shared_umem)
		umem = umem_find_shareable(mp);
	if (umem != NULL) {
		*is_new = false;
		return umem;
	}
	umem = rte_zmalloc_socket("af_xdp_umem", sizeof(*umem), 0, mp->socket_id);
	if (umem == NULL) {
		AF_XDP_PORT_LOG(ERR, port, "out of memory for a UMEM");
		return NULL;
	}
	if (af_xdp_umem_layout(mp, &umem->layout, err, sizeof(err)) != 0) {
		AF_XDP_PORT_LOG(ERR, port, "%s", err);
		rte_free(umem);
		return NULL;
	}
	umem->mb_pool = mp;
	umem->shareable = port->args.shared_umem;
	umem->reg_fd = -1;
	*is_new = true;
	return umem;
}

static int
register_umem(struct af_xdp_port *port, int fd, const struct af_xdp_umem *umem)
{
	struct xdp_umem_reg reg = {
		.addr = umem->layout.area,
		.len = umem->layout.size,
		.chunk_size = umem->layout.chunk_size,
		.headroom = 0,
		.flags = XDP_UMEM_UNALIGNED_CHUNK_FLAG,
	};

	if (setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &reg, sizeof(reg)) == 0)
		return 0;
	AF_XDP_PORT_LOG(ERR, port,
			"cannot register mempool %s (%zu bytes at %p, %u-byte chunks) as a UMEM: %s%s",
			umem->mb_pool->name, umem->layout.size, (void *)umem->layout.area,
			umem->layout.chunk_size, strerror(errno),
			errno == ENOMEM || errno == EPERM ?
			" (locked memory: run as root or with CAP_IPC_LOCK, or raise RLIMIT_MEMLOCK)" :
			errno == EINVAL ? " (a kernel without unaligned chunks, before 5.4?)" : "");
	return -errno;
}

static int
set_ring_size(struct af_xdp_port *port, int fd, int opt, const char *what, uint32_t size)
{
	if (setsockopt(fd, SOL_XDP, opt, &size, sizeof(size)) == 0)
		return 0;
	AF_XDP_PORT_LOG(ERR, port, "cannot size the %s ring to %u entries: %s",
			what, size, strerror(errno));
	return -errno;
}

enum { MAP_RX, MAP_TX, MAP_FILL, MAP_COMP };

static int
map_ring(struct af_xdp_port *port, struct af_xdp_socket *sock, int which,
	 const struct xdp_ring_offset *off, uint32_t size, size_t entry, off_t pgoff)
{
	static const char * const names[] = { "Rx", "Tx", "fill", "completion" };
	struct xsk_ring *r = which == MAP_RX ? &sock->rx : which == MAP_TX ? &sock->tx :
			     which == MAP_FILL ? &sock->fill : &sock->comp;
	size_t len = off->desc + (size_t)size * entry;
	void *map;

	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		   sock->fd, pgoff);
	if (map == MAP_FAILED) {
		AF_XDP_PORT_LOG(ERR, port, "cannot map the %s ring: %s", names[which],
				strerror(errno));
		return -errno;
	}
	sock->maps[which] = map;
	sock->map_len[which] = len;

	r->producer = (uint32_t *)((char *)map + off->producer);
	r->consumer = (uint32_t *)((char *)map + off->consumer);
	r->flags = (uint32_t *)((char *)map + off->flags);
	r->entries = (char *)map + off->desc;
	r->size = size;
	r->mask = size - 1;
	r->cached_prod = *r->producer;
	r->cached_cons = *r->consumer;
	/* Rings we produce see their free space as consumer + size. */
	if (which == MAP_TX || which == MAP_FILL)
		r->cached_cons += size;
	return 0;
}

static void
unmap_rings(struct af_xdp_socket *sock)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(sock->maps); i++) {
		if (sock->maps[i] != NULL)
			munmap(sock->maps[i], sock->map_len[i]);
		sock->maps[i] = NULL;
	}
}

static int
map_rings(struct af_xdp_port *port, struct af_xdp_socket *sock,
	  uint32_t rx_size, uint32_t tx_size, uint32_t fill_size, uint32_t comp_size)
{
	struct xdp_mmap_offsets off;
	socklen_t optlen = sizeof(off);
	int ret = 0;

	if (getsockopt(sock->fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &optlen) != 0) {
		AF_XDP_PORT_LOG(ERR, port, "cannot read the ring offsets: %s", strerror(errno));
		return -errno;
	}
	if (rx_size != 0)
		ret = map_ring(port, sock, MAP_RX, &off.rx, rx_size,
			       sizeof(struct xdp_desc), XDP_PGOFF_RX_RING);
	if (ret == 0 && tx_size != 0)
		ret = map_ring(port, sock, MAP_TX, &off.tx, tx_size,
			       sizeof(struct xdp_desc), XDP_PGOFF_TX_RING);
	if (ret == 0)
		ret = map_ring(port, sock, MAP_FILL, &off.fr, fill_size,
			       sizeof(uint64_t), XDP_UMEM_PGOFF_FILL_RING);
	if (ret == 0)
		ret = map_ring(port, sock, MAP_COMP, &off.cr, comp_size,
			       sizeof(uint64_t), XDP_UMEM_PGOFF_COMPLETION_RING);
	return ret;
}

/*
 * A socket closed a moment ago (this port's own, at stop) leaves its queue
 * only when the kernel's deferred release has run: until then bind says
 * EBUSY.  Wait for it, a bounded while, before believing that another
 * socket holds the queue.
 */
static int
bind_retrying(int fd, const struct sockaddr_xdp *sxdp)
{
	unsigned int tries;

	for (tries = 0; bind(fd, (const struct sockaddr *)sxdp, sizeof(*sxdp)) != 0; tries++) {
		if (errno != EBUSY || tries == AF_XDP_BIND_BUSY_TRIES)
			return -errno;
		usleep(AF_XDP_BIND_BUSY_WAIT_US);
	}
	return 0;
}

static int
bind_socket(struct af_xdp_port *port, struct af_xdp_socket *sock, bool shared)
{
	struct sockaddr_xdp sxdp = {
		.sxdp_family = AF_XDP,
		.sxdp_ifindex = (uint32_t)port->ifindex,
		.sxdp_queue_id = sock->netdev_queue,
	};
	int ret;

	if (shared) {
		/* The kernel refuses mode flags here: they come from the UMEM's owner. */
		sxdp.sxdp_flags = XDP_SHARED_UMEM;
		sxdp.sxdp_shared_umem_fd = (uint32_t)sock->umem->reg_fd;
	} else {
		sxdp.sxdp_flags = XDP_USE_NEED_WAKEUP;
		if (port->args.force_copy)
			sxdp.sxdp_flags |= XDP_COPY;
	}
	ret = bind_retrying(sock->fd, &sxdp);
	switch (-ret) {
	case 0:
		break;
	case EBUSY:
		AF_XDP_PORT_LOG(ERR, port,
				"queue %u of %s is already used by another AF_XDP socket (another port or process): pick other queues with start_queue",
				sock->netdev_queue, port->args.iface);
		break;
	case EINVAL:
		AF_XDP_PORT_LOG(ERR, port,
				"cannot bind to queue %u of %s: invalid (queue beyond the interface's channels, or shared UMEM on this kernel?)",
				sock->netdev_queue, port->args.iface);
		break;
	default:
		AF_XDP_PORT_LOG(ERR, port, "cannot bind to queue %u of %s: %s",
				sock->netdev_queue, port->args.iface, strerror(-ret));
	}
	return ret;
}

static void
read_socket_mode(struct af_xdp_socket *sock)
{
	struct xdp_options opts = { 0 };
	socklen_t optlen = sizeof(opts);

	if (getsockopt(sock->fd, SOL_XDP, XDP_OPTIONS, &opts, &optlen) == 0)
		sock->zero_copy = opts.flags & XDP_OPTIONS_ZEROCOPY;
}

static void
log_footprint(struct af_xdp_port *port, uint16_t idx, const struct af_xdp_socket *sock,
	      bool new_umem)
{
	const struct af_xdp_umem *umem = sock->umem;
	size_t rings = 0;
	unsigned int i;

	for (i = 0; i < RTE_DIM(sock->map_len); i++)
		rings += sock->map_len[i];
	AF_XDP_PORT_LOG(INFO, port,
			"queue %u: socket on %s queue %u, %s mode; rings rx %u, fill %u, tx %u, completion %u (%zu KiB mapped); UMEM %s: mempool %s, %zu KiB, %u-byte chunks, frames up to %u bytes",
			idx, port->args.iface, sock->netdev_queue,
			sock->zero_copy ? "zero-copy" : "copy",
			sock->rx.size, sock->fill.size, sock->tx.size, sock->comp.size,
			rings / 1024,
			new_umem ? "registered" : "shared",
			umem->mb_pool->name, umem->layout.size / 1024,
			umem->layout.chunk_size, umem->layout.max_frame);
}

/*
 * Create the socket serving queue pair idx: register (or share) mempool mp
 * as the UMEM, size and map the rings, bind to the interface queue.  rxq or
 * txq may be NULL when the port has fewer queues in that direction.
 */
struct af_xdp_socket *
af_xdp_socket_create(struct af_xdp_port *port, uint16_t idx, struct rte_mempool *mp,
		     struct af_xdp_rx_queue *rxq, struct af_xdp_tx_queue *txq)
{
	uint32_t rx_size = rxq != NULL ? rxq->nb_desc : 0;
	uint32_t tx_size = txq != NULL ? txq->nb_desc : 0;
	uint32_t fill_size = RTE_MAX(rx_size, (uint32_t)AF_XDP_RING_MIN);
	uint32_t comp_size = RTE_MAX(tx_size, (uint32_t)AF_XDP_RING_MIN);
	struct af_xdp_socket *sock;
	bool new_umem = false;
	int ret;

	sock = rte_zmalloc_socket("af_xdp_socket", sizeof(*sock), 0, mp->socket_id);
	if (sock == NULL)
		return NULL;
	sock->netdev_queue = port->args.start_queue + idx;

	pthread_mutex_lock(&umem_lock);
	sock->umem = umem_get(port, mp, &new_umem);
	if (sock->umem == NULL)
		goto err_unlock;

	sock->fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (sock->fd < 0) {
		AF_XDP_PORT_LOG(ERR, port, "cannot create an AF_XDP socket: %s%s", strerror(errno),
				errno == EPERM || errno == EACCES ?
				" (needs CAP_NET_RAW: run as root)" :
				errno == EAFNOSUPPORT ? " (kernel without CONFIG_XDP_SOCKETS)" : "");
		goto err_umem;
	}
	if (new_umem && register_umem(port, sock->fd, sock->umem) != 0)
		goto err_close;

	/* Own fill and completion rings, also when sharing another queue's UMEM. */
	ret = set_ring_size(port, sock->fd, XDP_UMEM_FILL_RING, "fill", fill_size);
	if (ret == 0)
		ret = set_ring_size(port, sock->fd, XDP_UMEM_COMPLETION_RING, "completion",
				    comp_size);
	if (ret == 0 && rx_size != 0)
		ret = set_ring_size(port, sock->fd, XDP_RX_RING, "Rx", rx_size);
	if (ret == 0 && tx_size != 0)
		ret = set_ring_size(port, sock->fd, XDP_TX_RING, "Tx", tx_size);
	if (ret != 0 || map_rings(port, sock, rx_size, tx_size, fill_size, comp_size) != 0)
		goto err_unmap;
	if (bind_socket(port, sock, !new_umem) != 0)
		goto err_unmap;
	read_socket_mode(sock);

	if (new_umem) {
		sock->umem->reg_fd = sock->fd;
		TAILQ_INSERT_TAIL(&umem_list, sock->umem, next);
	}
	sock->umem->users++;
	pthread_mutex_unlock(&umem_lock);

	if (rxq != NULL)
		af_xdp_rxq_bind(rxq, &sock->rx, &sock->fill, &sock->umem->layout, sock->fd);
	if (txq != NULL)
		af_xdp_txq_bind(txq, &sock->tx, &sock->comp, &sock->umem->layout,
				sock->umem->mb_pool, sock->fd);
	log_footprint(port, idx, sock, new_umem);
	return sock;

err_unmap:
	unmap_rings(sock);
err_close:
	close(sock->fd);
err_umem:
	if (new_umem)
		rte_free(sock->umem);
err_unlock:
	pthread_mutex_unlock(&umem_lock);
	rte_free(sock);
	return NULL;
}

/* Mbufs still offered to the kernel in the fill ring, or received but not taken. */
static unsigned int
reclaim_rx(struct af_xdp_socket *sock, struct af_xdp_rx_queue *rxq)
{
	uintptr_t mbuf_base = sock->umem->layout.mbuf_base;
	struct rte_mempool *mp = rxq->mb_pool;
	unsigned int n = 0;
	uint32_t i, end;

	/* Unconsumed fill entries: from the kernel's consumer to our producer. */
	end = rxq->fill.cached_prod;
	for (i = __atomic_load_n(rxq->fill.consumer, __ATOMIC_ACQUIRE); i != end; i++, n++)
		rte_mempool_put(mp, (void *)(mbuf_base +
			(*xsk_ring_addr(&rxq->fill, i) & XSK_UNALIGNED_BUF_ADDR_MASK)));
	/* Received frames not handed to the application. */
	end = __atomic_load_n(rxq->rx.producer, __ATOMIC_ACQUIRE);
	for (i = rxq->rx.cached_cons; i != end; i++, n++)
		rte_mempool_put(mp, (void *)(mbuf_base +
			(xsk_ring_desc(&rxq->rx, i)->addr & XSK_UNALIGNED_BUF_ADDR_MASK)));
	return n;
}

/* Frames queued for transmission that the kernel never took. */
static unsigned int
reclaim_tx(struct af_xdp_tx_queue *txq)
{
	uint32_t i, end = txq->tx.cached_prod;
	unsigned int n = 0;

	for (i = __atomic_load_n(txq->tx.consumer, __ATOMIC_ACQUIRE); i != end; i++, n++)
		rte_pktmbuf_free((struct rte_mbuf *)(txq->mbuf_base +
			(xsk_ring_desc(&txq->tx, i)->addr & XSK_UNALIGNED_BUF_ADDR_MASK)));
	return n;
}

/* Wait, boundedly, for the kernel to complete what it took from the Tx ring. */
static void
drain_tx(struct af_xdp_tx_queue *txq)
{
	unsigned int tries;

	for (tries = 0; tries < 100; tries++) {
		af_xdp_txq_drain(txq);
		if (txq->outstanding == 0 || xsk_ring_pending(&txq->tx) == txq->outstanding)
			return;
		usleep(1000);
	}
}

/*
 * Tear a socket down.  The caller has taken it out of the XSKMAP.  With
 * reclaim (copy mode, and no program can still steer frames to it), the
 * mbufs the kernel will never touch again go back to the mempool; in
 * zero-copy mode the driver may hold fill entries, so nothing is reclaimed.
 */
void
af_xdp_socket_destroy(struct af_xdp_port *port, struct af_xdp_socket *sock,
		      struct af_xdp_rx_queue *rxq, struct af_xdp_tx_queue *txq, bool reclaim)
{
	uint16_t idx = (uint16_t)(sock->netdev_queue - port->args.start_queue);
	struct af_xdp_umem *umem = sock->umem;
	unsigned int reclaimed = 0;

	if (txq != NULL && txq->fd == sock->fd) {
		drain_tx(txq);
		if (reclaim && !sock->zero_copy)
			reclaimed += reclaim_tx(txq);
	}
	if (rxq != NULL && rxq->fd == sock->fd && reclaim && !sock->zero_copy)
		reclaimed += reclaim_rx(sock, rxq);
	if (reclaimed != 0)
		AF_XDP_PORT_LOG(DEBUG, port, "queue %u: %u mbufs back to their mempool",
				idx, reclaimed);

	unmap_rings(sock);
	pthread_mutex_lock(&umem_lock);
	close(sock->fd);
	if (--umem->users == 0) {
		TAILQ_REMOVE(&umem_list, umem, next);
		rte_free(umem);
	} else if (umem->reg_fd == sock->fd) {
		umem->shareable = false;	/* no live fd left to share it through */
	}
	pthread_mutex_unlock(&umem_lock);

	if (rxq != NULL && rxq->fd == sock->fd)
		rxq->fd = -1;
	if (txq != NULL && txq->fd == sock->fd)
		txq->fd = -1;
	rte_free(sock);
}

int
af_xdp_socket_kernel_stats(int fd, struct af_xdp_kernel_stats *ks)
{
	struct xdp_statistics xs;
	socklen_t optlen = sizeof(xs);

	memset(ks, 0, sizeof(*ks));
	if (fd < 0)
		return -EBADF;
	if (getsockopt(fd, SOL_XDP, XDP_STATISTICS, &xs, &optlen) != 0)
		return -errno;
	ks->rx_dropped = xs.rx_dropped;
	ks->rx_invalid_descs = xs.rx_invalid_descs;
	ks->tx_invalid_descs = xs.tx_invalid_descs;
	/* Kernels before 5.9 return only the first three counters. */
	if (optlen >= sizeof(xs)) {
		ks->rx_ring_full = xs.rx_ring_full;
		ks->rx_fill_ring_empty_descs = xs.rx_fill_ring_empty_descs;
		ks->tx_ring_empty_descs = xs.tx_ring_empty_descs;
	}
	return 0;
}
