/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The AF_XDP socket of one queue index: created on its UMEM, its four rings
 * sized and mapped, bound to the interface queue; and closed, which is what
 * makes the kernel let go of the rings and of the UMEM's chunks.  What the
 * rings carry is the business of af_xdp_rx.c and af_xdp_tx.c.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <rte_lcore.h>
#include <rte_malloc.h>

#include "af_xdp_iface.h"
#include "af_xdp_socket.h"
#include "af_xdp_umem.h"

#ifndef SO_INCOMING_NAPI_ID
#define SO_INCOMING_NAPI_ID 56
#endif

/* How long bind() may say EBUSY for a queue our own closed socket is leaving. */
#define AF_XDP_BIND_BUSY_WAIT_US 5000
#define AF_XDP_BIND_BUSY_TRIES 200

static int
set_ring_size(const struct af_xdp_port *port, int fd, int opt, const char *what, uint32_t size)
{
	int err;

	if (setsockopt(fd, SOL_XDP, opt, &size, sizeof(size)) == 0)
		return 0;
	err = errno;
	AF_XDP_PORT_LOG(ERR, port, "cannot size the %s ring to %u entries: %s",
			what, size, strerror(err));
	return -err;
}

static int
size_rings(const struct af_xdp_port *port, int fd, uint32_t rx_size, uint32_t tx_size,
	   uint32_t fill_size, uint32_t comp_size)
{
	/* Own fill and completion rings, also when sharing another queue's UMEM. */
	int ret = set_ring_size(port, fd, XDP_UMEM_FILL_RING, "fill", fill_size);

	if (ret == 0)
		ret = set_ring_size(port, fd, XDP_UMEM_COMPLETION_RING, "completion", comp_size);
	if (ret == 0 && rx_size != 0)
		ret = set_ring_size(port, fd, XDP_RX_RING, "Rx", rx_size);
	if (ret == 0 && tx_size != 0)
		ret = set_ring_size(port, fd, XDP_TX_RING, "Tx", tx_size);
	return ret;
}

enum { MAP_RX, MAP_TX, MAP_FILL, MAP_COMP };

static int
map_ring(const struct af_xdp_port *port, struct af_xdp_socket *sock, int which,
	 const struct xdp_ring_offset *off, uint32_t size, size_t entry, off_t pgoff)
{
	static const char * const names[] = { "Rx", "Tx", "fill", "completion" };
	struct af_xdp_ring *r = which == MAP_RX ? &sock->rx : which == MAP_TX ? &sock->tx :
			     which == MAP_FILL ? &sock->fill : &sock->comp;
	size_t len = off->desc + (size_t)size * entry;
	void *map;
	int err;

	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		   sock->fd, pgoff);
	if (map == MAP_FAILED) {
		err = errno;
		AF_XDP_PORT_LOG(ERR, port, "cannot map the %s ring: %s", names[which],
				strerror(err));
		return -err;
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
map_rings(const struct af_xdp_port *port, struct af_xdp_socket *sock,
	  uint32_t rx_size, uint32_t tx_size, uint32_t fill_size, uint32_t comp_size)
{
	struct xdp_mmap_offsets off;
	socklen_t optlen = sizeof(off);
	int ret = 0;

	if (getsockopt(sock->fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &optlen) != 0) {
		ret = -errno;
		AF_XDP_PORT_LOG(ERR, port, "cannot read the ring offsets: %s", strerror(-ret));
		return ret;
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
bind_socket(const struct af_xdp_port *port, struct af_xdp_socket *sock, bool shared,
	    bool multi_buffer)
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
		sxdp.sxdp_shared_umem_fd = (uint32_t)af_xdp_umem_fd(sock->umem);
	} else {
		sxdp.sxdp_flags = XDP_USE_NEED_WAKEUP;
		/*
		 * Generic XDP hands the socket a copy of each frame whatever
		 * the bind says (the kernel's xsk_generic_rcv): a zero-copy
		 * bind there would only claim a mode that does not happen.
		 */
		if (port->args.force_copy || port->args.mode == AF_XDP_ATTACH_SKB)
			sxdp.sxdp_flags |= XDP_COPY;
		if (!port->args.force_copy && port->args.mode == AF_XDP_ATTACH_SKB)
			AF_XDP_PORT_LOG(INFO, port,
					"queue %u: copy mode: generic (skb) XDP copies every frame; zero-copy needs native XDP (mode=drv)",
					sock->netdev_queue);
		if (multi_buffer)
			sxdp.sxdp_flags |= XDP_USE_SG;
	}
	ret = bind_retrying(sock->fd, &sxdp);
	if (ret == -EINVAL && (sxdp.sxdp_flags & XDP_USE_SG)) {
		/* A kernel before 6.6 refuses a flag it does not know. */
		sxdp.sxdp_flags &= ~XDP_USE_SG;
		ret = bind_retrying(sock->fd, &sxdp);
		if (ret == 0)
			AF_XDP_PORT_LOG(INFO, port,
					"queue %u: the kernel refuses XDP_USE_SG: no AF_XDP multi-buffer (Linux 6.6+), frames of one chunk only",
					sock->netdev_queue);
	}
	sock->multi_buffer = shared ? af_xdp_umem_multi_buffer(sock->umem) :
			     ret == 0 && (sxdp.sxdp_flags & XDP_USE_SG);
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

/*
 * Copy mode sends in the sendto() that kicks it, at most the socket's Tx
 * budget of descriptors per call (32 unless raised: Linux 6.17's
 * XDP_MAX_TX_SKB_BUDGET); the kernel then says EAGAIN and the driver kicks
 * again until the ring is empty or no completion comes (af_xdp_tx.c), so a
 * burst of testpmd's 64 frames costs two calls.  A budget of the Tx ring's size, the most the
 * kernel takes, lets one call drain whatever the ring holds: the kernel's
 * loop then stops only on an empty ring, a full completion ring or the
 * device's backpressure, as before.  The frames sent are the same, the
 * calls fewer: the driver's kicks would have run the same frames through
 * the same loop, one call after the other.  Zero-copy has no such loop in
 * sendto() (the driver's NAPI sends), so it is left alone there; and so
 * it is with tx_budget=kernel, for comparison.
 */
static void
raise_tx_budget(const struct af_xdp_port *port, struct af_xdp_socket *sock)
{
	static bool said_unsupported;
	uint32_t budget = sock->tx.size;
	int err;

	sock->tx_budget = 0;
	if (sock->zero_copy || budget <= AF_XDP_KERNEL_TX_BUDGET ||
	    port->args.tx_budget == AF_XDP_TX_BUDGET_KERNEL)
		return;
	if (setsockopt(sock->fd, SOL_XDP, XDP_MAX_TX_SKB_BUDGET, &budget, sizeof(budget)) == 0) {
		sock->tx_budget = budget;
		return;
	}
	err = errno;
	if (err == ENOPROTOOPT) {
		/* Before Linux 6.17: the kernel's 32 per call, nothing changes. */
		if (!said_unsupported)
			AF_XDP_PORT_LOG(INFO, port,
					"the kernel has no XDP_MAX_TX_SKB_BUDGET (Linux 6.17+): copy mode sends at most %u frames per sendto()",
					AF_XDP_KERNEL_TX_BUDGET);
		said_unsupported = true;
		return;
	}
	AF_XDP_PORT_LOG(INFO, port,
			"queue %u: the kernel refuses a Tx budget of %u per sendto(): %s; its default stays",
			sock->netdev_queue, budget, strerror(err));
}

static void
log_footprint(const struct af_xdp_port *port, uint16_t idx, const struct af_xdp_socket *sock,
	      bool shared)
{
	const struct af_xdp_umem_layout *layout = af_xdp_umem_layout_of(sock->umem);
	size_t rings = 0;
	unsigned int i;
	char budget[48] = "";

	if (sock->tx_budget != 0)
		snprintf(budget, sizeof(budget), "; Tx budget %u per sendto()", sock->tx_budget);
	for (i = 0; i < RTE_DIM(sock->map_len); i++)
		rings += sock->map_len[i];
	AF_XDP_PORT_LOG(INFO, port,
			"queue %u: socket on %s queue %u, %s mode%s; rings rx %u, fill %u, tx %u, completion %u (%zu KiB mapped)%s; UMEM %s: mempool %s, %zu KiB, %u-byte chunks, up to %u bytes of frame per chunk",
			idx, port->args.iface, sock->netdev_queue,
			sock->zero_copy ? "zero-copy" : "copy",
			sock->multi_buffer ? ", multi-buffer" : "",
			sock->rx.size, sock->fill.size, sock->tx.size, sock->comp.size,
			rings / 1024, budget,
			shared ? "shared" : "registered",
			af_xdp_umem_pool(sock->umem)->name, layout->size / 1024,
			layout->chunk_size, layout->max_frame);
}

static int
new_socket_fd(const struct af_xdp_port *port)
{
	int fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	int err;

	if (fd >= 0)
		return fd;
	err = errno;
	AF_XDP_PORT_LOG(ERR, port, "cannot create an AF_XDP socket: %s%s", strerror(err),
			err == EPERM || err == EACCES ?
			" (it needs CAP_NET_RAW: run as root, or with the capabilities the README lists: CAP_NET_RAW, CAP_NET_ADMIN, CAP_BPF, CAP_IPC_LOCK, and CAP_SYS_ADMIN for libxdp to detach the program at stop; e.g. AmbientCapabilities= for a systemd service)" :
			err == EAFNOSUPPORT ? " (kernel without CONFIG_XDP_SOCKETS)" : "");
	return -err;
}

struct af_xdp_socket *
af_xdp_socket_open(struct af_xdp_port *port, uint16_t idx, struct rte_mempool *mp,
		   uint32_t rx_size, uint32_t tx_size, bool multi_buffer, bool own_umem)
{
	uint32_t fill_size = RTE_MAX(rx_size, (uint32_t)AF_XDP_RING_MIN);
	uint32_t comp_size = RTE_MAX(tx_size, (uint32_t)AF_XDP_RING_MIN);
	uint32_t own_chunks = 0;
	struct af_xdp_socket *sock;
	bool shared;

	/*
	 * The driver's UMEM holds what the four rings can hold at once (the
	 * kernel moves a fill entry to the Rx ring, a Tx entry to the
	 * completion ring), a frame being assembled, and what mempool caches
	 * keep: each lcore's up to one and a half times the cache, counted for
	 * the lcores that can use a queue's pool (its Rx and Tx threads; at
	 * most AF_XDP_OWN_POOL_LCORES, so that an application of many lcores
	 * does not pay for all of them per queue: a shortfall would only
	 * leave fill slots empty, counted in rx_nombuf).
	 */
	if (own_umem)
		own_chunks = fill_size + rx_size + tx_size + comp_size + 2 * AF_XDP_RX_BATCH +
			     AF_XDP_TX_MAX_SEGS +
			     RTE_MIN(rte_lcore_count(), (unsigned int)AF_XDP_OWN_POOL_LCORES) *
			     (AF_XDP_OWN_POOL_CACHE * 3 / 2);

	sock = rte_zmalloc_socket("af_xdp_socket", sizeof(*sock), 0, mp->socket_id);
	if (sock == NULL)
		return NULL;
	sock->netdev_queue = port->args.start_queue + idx;
	sock->fd = new_socket_fd(port);
	if (sock->fd < 0)
		goto err_free;
	sock->umem = af_xdp_umem_join(port, mp, sock->fd, own_chunks, &shared);
	if (sock->umem == NULL)
		goto err_close;
	sock->own_pool = af_xdp_umem_own_pool(sock->umem);
	if (size_rings(port, sock->fd, rx_size, tx_size, fill_size, comp_size) != 0 ||
	    map_rings(port, sock, rx_size, tx_size, fill_size, comp_size) != 0 ||
	    bind_socket(port, sock, shared, multi_buffer) != 0)
		goto err_leave;
	read_socket_mode(sock);
	if (tx_size != 0)
		raise_tx_budget(port, sock);
	af_xdp_umem_bound(sock->umem, sock->fd, sock->multi_buffer);
	log_footprint(port, idx, sock, shared);
	return sock;

err_leave:
	unmap_rings(sock);
	af_xdp_umem_leave(sock->umem, sock->fd);
err_close:
	close(sock->fd);
	/* Never bound: the kernel had none of its chunks. */
	rte_mempool_free(sock->own_pool);
err_free:
	rte_free(sock);
	return NULL;
}

/*
 * Whether the interface's queue has no AF_XDP socket bound: a throwaway
 * socket, with a UMEM of two chunks and rings of two entries, binds to it
 * in copy mode, which the kernel refuses with EBUSY while another socket's
 * buffer pool is registered at the queue, whatever that socket's mode.
 * Copy mode asks nothing of the interface's driver.  1 or 0; -errno when
 * the probe itself fails, which says nothing (af_xdp_queue_wait_free()).
 *
 * A free queue also means the kernel is done with every UMEM chunk of the
 * sockets that were there (net/xdp/xsk_buff_pool.c and xsk.c, read in 6.12):
 * the pool leaves the queue in xp_clear_dev(), run by the pool's deferred
 * release once the last socket using it is destroyed - after the last
 * descriptor is closed and the last Tx skb built from it freed (each holds
 * the socket).  xp_clear_dev() first has the driver give up the pool in
 * zero-copy mode (xp_disable_drv_zc(): ndo_bpf with XDP_SETUP_XSK_POOL and
 * no pool, where a NIC's driver stops its queue and hands back the buffers
 * its hardware had), and only then clears the pool at the queue
 * (xsk_clear_pool_at_qid()), which is what lets our bind through.
 */
int
af_xdp_queue_free(int ifindex, uint32_t queue)
{
	const size_t len = 2 * (size_t)AF_XDP_CHUNK_MIN;
	struct af_xdp_umem_reg reg = { .len = len, .chunk_size = AF_XDP_CHUNK_MIN };
	struct sockaddr_xdp sxdp = { .sxdp_family = AF_XDP, .sxdp_ifindex = (uint32_t)ifindex,
				     .sxdp_queue_id = queue, .sxdp_flags = XDP_COPY };
	uint32_t two = 2;
	void *area;
	int fd, ret;

	area = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return -errno;
	reg.addr = (uintptr_t)area;
	fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	ret = fd < 0 ||
	      setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &reg, sizeof(reg)) != 0 ||
	      setsockopt(fd, SOL_XDP, XDP_UMEM_FILL_RING, &two, sizeof(two)) != 0 ||
	      setsockopt(fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, &two, sizeof(two)) != 0 ||
	      setsockopt(fd, SOL_XDP, XDP_RX_RING, &two, sizeof(two)) != 0 ? -errno : 0;
	if (ret == 0)
		ret = bind(fd, (const struct sockaddr *)&sxdp, sizeof(sxdp)) == 0 ? 1 :
		      errno == EBUSY ? 0 : -errno;
	if (fd >= 0)
		close(fd);
	munmap(area, len);
	return ret;
}

/*
 * A probe that cannot run says nothing of the queue, and is taken as "not
 * free": the mbufs stay the kernel's until a probe or a bind says
 * otherwise.  Its failure is no rare accident either: its UMEM is charged
 * to RLIMIT_MEMLOCK (without CAP_IPC_LOCK), and a closed socket that still
 * lives (another process holds a copy of its descriptor, Tx skbs are in
 * flight) keeps its own UMEM charged, so that a limit sized to the port's
 * UMEMs refuses the probe (ENOBUFS) in exactly the case it is there to
 * see.  Once the old socket is gone its charge is too, and the probe runs.
 * (sock_diag could say whether the socket's inode is still there without
 * any UMEM, but not enough: the socket leaves its list at the release of
 * its file, while its pool stays at the queue, a NIC still writing into
 * the fill ring's buffers, until the last skb and the deferred release of
 * the pool are done: only a bind sees that.)
 */
bool
af_xdp_queue_wait_free(int ifindex, uint32_t queue)
{
	unsigned int ms;
	int free = 0;

	for (ms = 0; ms < AF_XDP_CLOSE_WAIT_MS; ms++) {
		free = af_xdp_queue_free(ifindex, queue);
		if (free > 0)
			return true;
		usleep(1000);
	}
	if (free < 0)
		AF_XDP_LOG(DEBUG, "cannot look whether queue %u of ifindex %d is free: %s; taken as still in use",
			   queue, ifindex, strerror(-free));
	return false;
}

void
af_xdp_socket_close(struct af_xdp_socket *sock)
{
	/*
	 * Each mapping holds the socket's file: the kernel releases the socket
	 * (unbinds it, waits for the receive paths with synchronize_net(), and
	 * takes it out of every XSKMAP) when the last of them and the
	 * descriptor are gone, before the last of these calls returns -
	 * unless another process holds a copy of the descriptor.
	 */
	unmap_rings(sock);
	af_xdp_umem_leave(sock->umem, sock->fd);
	close(sock->fd);
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
	af_xdp_kstats_from_kernel(&xs, optlen, ks);
	return 0;
}

#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL 69
#endif
#ifndef SO_BUSY_POLL_BUDGET
#define SO_BUSY_POLL_BUDGET 70
#endif
int
af_xdp_socket_busy_poll(int fd, int budget)
{
	int prefer = 1, usecs = AF_XDP_BUSY_POLL_USECS;

	if (setsockopt(fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &prefer, sizeof(prefer)) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &usecs, sizeof(usecs)) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget, sizeof(budget)) != 0)
		return -errno;
	return 0;
}

int
af_xdp_socket_busy_poll_usecs(int fd, int *usecs)
{
	socklen_t len = sizeof(*usecs);

	*usecs = -1;
	if (getsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, usecs, &len) != 0)
		return -errno;
	return 0;
}

int
af_xdp_socket_napi_id(int fd, unsigned int *napi_id)
{
	socklen_t len = sizeof(*napi_id);

	*napi_id = 0;
	if (getsockopt(fd, SOL_SOCKET, SO_INCOMING_NAPI_ID, napi_id, &len) != 0)
		return -errno;
	return 0;
}
