/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * Sleeping when idle.
 *
 * Rx interrupts.  An AF_XDP socket reports EPOLLIN while its Rx ring holds
 * frames, and the kernel wakes its waiters when it puts frames there: that
 * is the interrupt.  The application registers each Rx queue's event fd in
 * its thread's epoll set (rte_eth_dev_rx_intr_ctl_q()), arms the queue
 * (rte_eth_dev_rx_intr_enable()) and sleeps in rte_epoll_wait().
 *
 * The event fd of a queue is not its socket but an epoll instance of the
 * driver's, which holds the socket while the queue is armed:
 *
 *  - EAL registers event fds edge-triggered (EPOLLET, in rte_intr_rx_ctl()):
 *    had it the socket itself, frames left in the ring when the application
 *    goes back to sleep (it took fewer than were there) would raise no new
 *    edge and stay there until another frame came.  Arming puts the socket
 *    into the queue's epoll level-triggered, and the kernel looks at the
 *    ring as it does so: a ring that already holds frames, whenever they
 *    came, signals at once.  A frame arriving after that wakes the socket's
 *    waiters, ours among them.
 *  - Disarmed, the socket is in no epoll set: a polling application pays
 *    for no wakeup.
 *  - Sockets are made at start and closed at stop; the event fds live from
 *    configure to close, so the application's registrations outlast a
 *    restart.
 *
 * EAL reads nothing from the event fds (RTE_INTR_HANDLE_EXT): an AF_XDP
 * socket cannot be read(), and an epoll instance needs nothing read.
 *
 * Busy polling is off with Rx interrupts: SO_PREFER_BUSY_POLL tells the
 * kernel the application polls, and where the interface defers its
 * interrupts (napi_defer_hard_irqs, gro_flush_timeout) it leaves the work
 * to the application's syscalls, which a sleeping application does not
 * make: each frame would wait for the deferral timer.  An application that
 * sleeps wants interrupts, not a busy-polling budget.
 *
 * Power-management monitor (RTE_POWER_MGMT_TYPE_MONITOR): the address to
 * watch is the Rx ring's producer index, which the kernel writes when it
 * puts frames in the ring.
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>

#include <rte_interrupts.h>

#include "af_xdp.h"
#include "af_xdp_intr.h"
#include "af_xdp_rx.h"

static struct af_xdp_port *
port_of(const struct rte_eth_dev *dev)
{
	return dev->data->dev_private;
}

bool
af_xdp_intr_rxq(const struct rte_eth_dev *dev)
{
	return dev->data->dev_conf.intr_conf.rxq != 0;
}

void
af_xdp_intr_release(struct rte_eth_dev *dev)
{
	struct rte_intr_handle *h = dev->intr_handle;
	int i, n;

	if (h == NULL)
		return;
	dev->intr_handle = NULL;
	/* Out of the epoll sets the application registered them in. */
	rte_intr_free_epoll_fd(h);
	n = rte_intr_nb_efd_get(h);
	for (i = 0; i < n; i++)
		close(rte_intr_efds_index_get(h, i));
	rte_intr_vec_list_free(h);
	rte_intr_instance_free(h);
}

/*
 * Queue q's vector is RTE_INTR_VEC_RXTX_OFFSET + q and its event fd the
 * q-th: every Rx queue can sleep.
 */
static int
install(struct rte_eth_dev *dev, uint16_t nb)
{
	struct af_xdp_port *port = port_of(dev);
	struct rte_intr_handle *h;
	uint16_t q;
	int ret;

	h = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (h == NULL)
		return -ENOMEM;
	dev->intr_handle = h;
	ret = rte_intr_type_set(h, RTE_INTR_HANDLE_EXT);
	if (ret == 0)
		ret = rte_intr_vec_list_alloc(h, "af_xdp_intr_vec", nb);
	for (q = 0; q < nb && ret == 0; q++) {
		int epfd = epoll_create1(EPOLL_CLOEXEC);

		if (epfd < 0) {
			ret = -errno;
			AF_XDP_PORT_LOG(ERR, port, "Rx interrupts: cannot make queue %u's event fd: %s",
					q, strerror(errno));
			break;
		}
		/* Counted at once: release closes what was made. */
		ret = rte_intr_efds_index_set(h, q, epfd);
		if (ret != 0) {
			close(epfd);
			break;
		}
		ret = rte_intr_nb_efd_set(h, q + 1);
		if (ret == 0)
			ret = rte_intr_vec_list_index_set(h, q, RTE_INTR_VEC_RXTX_OFFSET + q);
	}
	if (ret != 0)
		af_xdp_intr_release(dev);
	return ret;
}

int
af_xdp_intr_configure(struct rte_eth_dev *dev)
{
	struct af_xdp_port *port = port_of(dev);
	uint16_t nb = dev->data->nb_rx_queues;
	int ret;

	if (!af_xdp_intr_rxq(dev)) {
		af_xdp_intr_release(dev);
		return 0;
	}
	if (port->args.busy_budget_given && port->args.busy_budget != 0) {
		AF_XDP_PORT_LOG(ERR, port,
				"%s=%u and Rx interrupts (intr_conf.rxq) exclude each other: busy polling asks the kernel to leave the interface's work to the application's syscalls, which a sleeping application does not make; use %s=0",
				AF_XDP_ARG_BUSY_BUDGET, port->args.busy_budget,
				AF_XDP_ARG_BUSY_BUDGET);
		return -EINVAL;
	}
	if (nb > RTE_MAX_RXTX_INTR_VEC_ID) {
		AF_XDP_PORT_LOG(ERR, port,
				"Rx interrupts (intr_conf.rxq) for %u Rx queues: EAL's interrupt handle takes at most %u; configure fewer queues or poll them",
				nb, RTE_MAX_RXTX_INTR_VEC_ID);
		return -EINVAL;
	}
	if (dev->intr_handle != NULL && rte_intr_nb_efd_get(dev->intr_handle) == nb)
		return 0;
	af_xdp_intr_release(dev);
	ret = install(dev, nb);
	if (ret != 0) {
		AF_XDP_PORT_LOG(ERR, port, "Rx interrupts: cannot set up the interrupt handle");
		return ret;
	}
	AF_XDP_PORT_LOG(INFO, port,
			"Rx interrupts: an event fd per Rx queue (%u), armed with rte_eth_dev_rx_intr_enable(); busy polling off",
			nb);
	return 0;
}

/* Queue qid's event fd, or -1 when the port has no Rx interrupts. */
static int
event_fd(const struct rte_eth_dev *dev, uint16_t qid)
{
	if (dev->intr_handle == NULL || qid >= rte_intr_nb_efd_get(dev->intr_handle))
		return -1;
	return rte_intr_efds_index_get(dev->intr_handle, qid);
}

/*
 * Called from the thread that polls the queue, as applications do (it
 * touches the fill ring, which only that thread produces to).
 */
int
af_xdp_rx_queue_intr_enable(struct rte_eth_dev *dev, uint16_t qid)
{
	struct af_xdp_rx_queue *rxq = dev->data->rx_queues[qid];
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = qid };
	int efd = event_fd(dev, qid);

	if (efd < 0) {
		AF_XDP_PORT_LOG(ERR, port_of(dev),
				"Rx queue %u: no Rx interrupts; configure the port with intr_conf.rxq = 1",
				qid);
		return -ENOTSUP;
	}
	if (rxq->fd < 0)
		return -EIO;	/* stopped: no socket to wait for */
	/*
	 * Nothing stranded while the application sleeps: a fill ring left
	 * short by a lack of mbufs is topped up if it can be now (an empty
	 * fill ring drops every frame, and a drop wakes nobody), and a kernel
	 * that waits for a kick to use the fill ring (zero-copy) gets it.
	 * Adding the socket below polls it, and the kernel's poll of a
	 * zero-copy socket kicks its driver as well (vm-zc/rx_intr passes
	 * without this kick); this one does not rely on it.
	 */
	if (unlikely(rxq->fill_shortfall != 0))
		af_xdp_fill(rxq);
	if (af_xdp_ring_needs_wakeup(&rxq->fill))
		af_xdp_rx_wakeup(rxq);
	/* The kernel looks at the Rx ring as it adds the socket: see the top. */
	if (epoll_ctl(efd, EPOLL_CTL_ADD, rxq->fd, &ev) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int
af_xdp_rx_queue_intr_disable(struct rte_eth_dev *dev, uint16_t qid)
{
	struct af_xdp_rx_queue *rxq = dev->data->rx_queues[qid];
	int efd = event_fd(dev, qid);

	if (efd < 0)
		return -ENOTSUP;
	if (rxq->fd < 0)
		return 0;	/* stopped: disarmed before its socket closed */
	if (epoll_ctl(efd, EPOLL_CTL_DEL, rxq->fd, NULL) != 0 && errno != ENOENT)
		return -errno;
	return 0;
}

void
af_xdp_intr_disarm_all(struct rte_eth_dev *dev)
{
	uint16_t q;

	if (dev->intr_handle == NULL)
		return;
	for (q = 0; q < dev->data->nb_rx_queues; q++)
		if (dev->data->rx_queues[q] != NULL)
			af_xdp_rx_queue_intr_disable(dev, q);
}

/*
 * Sleep only while the Rx ring's producer is where we consume from: the
 * ring is empty.  Compared with our consumer index, not with the producer
 * last read, so that frames already seen but not yet taken keep the core
 * awake too.
 */
static int
rx_ring_moved(const uint64_t value, const uint64_t opaque[RTE_POWER_MONITOR_OPAQUE_SZ])
{
	return (uint32_t)value == (uint32_t)opaque[0] ? 0 : -1;
}

int
af_xdp_get_monitor_addr(void *rx_queue, struct rte_power_monitor_cond *pmc)
{
	const struct af_xdp_rx_queue *rxq = rx_queue;

	if (rxq->fd < 0)
		return -EIO;	/* stopped: no ring to watch */
	pmc->addr = rxq->rx.producer;
	pmc->size = sizeof(uint32_t);
	pmc->fn = rx_ring_moved;
	pmc->opaque[0] = rxq->rx.cached_cons;
	return 0;
}
