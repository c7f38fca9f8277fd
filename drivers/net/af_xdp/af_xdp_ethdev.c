/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * Probe, remove and the ethdev operations of the extended AF_XDP PMD.
 *
 * Life of a port: probe validates the devargs against the interface and
 * allocates the port; queue setup validates each mempool as a UMEM; start
 * creates one socket per queue pair, fills the fill rings, attaches the XDP
 * program and inserts the sockets into its XSKMAP; stop undoes start, so a
 * stopped port gives its traffic back to the kernel stack; close frees it all.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <net/if.h>

#include <bus_vdev_driver.h>
#include <ethdev_driver.h>
#include <ethdev_vdev.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_string_fns.h>

#include "af_xdp.h"
#include "af_xdp_csum.h"
#include "af_xdp_iface.h"
#include "af_xdp_intr.h"
#include "af_xdp_kernel.h"
#include "af_xdp_lend.h"
#include "af_xdp_link.h"
#include "af_xdp_mp.h"
#include "af_xdp_prog.h"
#include "af_xdp_rx.h"
#include "af_xdp_rx_offload.h"
#include "af_xdp_socket.h"
#include "af_xdp_state.h"
#include "af_xdp_stats.h"
#include "af_xdp_tx.h"
#include "af_xdp_umem.h"
#include "af_xdp_version.h"

static struct af_xdp_port *
port_of(struct rte_eth_dev *dev)
{
	return dev->data->dev_private;
}

static uint16_t
nb_sockets(const struct rte_eth_dev *dev)
{
	return RTE_MAX(dev->data->nb_rx_queues, dev->data->nb_tx_queues);
}

static struct af_xdp_rx_queue *
rxq_at(const struct rte_eth_dev *dev, uint16_t i)
{
	return i < dev->data->nb_rx_queues ? dev->data->rx_queues[i] : NULL;
}

static struct af_xdp_tx_queue *
txq_at(const struct rte_eth_dev *dev, uint16_t i)
{
	return i < dev->data->nb_tx_queues ? dev->data->tx_queues[i] : NULL;
}

static int
af_xdp_dev_configure(struct rte_eth_dev *dev)
{
	struct af_xdp_port *port = port_of(dev);
	const struct rte_eth_conf *conf = &dev->data->dev_conf;
	int ret;

	if (dev->data->nb_rx_queues == 0) {
		AF_XDP_PORT_LOG(ERR, port,
				"needs at least one Rx queue: the mempool of Rx queue 0 is the UMEM that Tx frames live in");
		return -EINVAL;
	}
	/*
	 * Each Rx queue polls the socket of its own interface queue, and the
	 * kernel delivers a frame only to a socket bound to the queue it
	 * arrived on: with fewer Rx queues, what the interface steers to the
	 * others would never be received.  Refused, rather than have a queue
	 * poll several sockets in the datapath.
	 */
	if (dev->data->nb_rx_queues < port->args.queue_count) {
		uint32_t first = port->args.start_queue + dev->data->nb_rx_queues;
		uint32_t last = port->args.start_queue + port->args.queue_count - 1;
		char missed[32];

		if (first == last)
			snprintf(missed, sizeof(missed), "queue %u", first);
		else
			snprintf(missed, sizeof(missed), "queues %u..%u", first, last);
		AF_XDP_PORT_LOG(ERR, port,
				"%s=%u binds %u queues of %s, but the application configured %u Rx queue%s: frames the interface steers to its %s would never be received; configure %u Rx queues (testpmd: --rxq=%u), or bind fewer (%s=%u)",
				AF_XDP_ARG_QUEUE_COUNT, port->args.queue_count,
				port->args.queue_count, port->args.iface, dev->data->nb_rx_queues,
				dev->data->nb_rx_queues == 1 ? "" : "s", missed,
				port->args.queue_count, port->args.queue_count,
				AF_XDP_ARG_QUEUE_COUNT, dev->data->nb_rx_queues);
		return -EINVAL;
	}
	if (conf->rxmode.mq_mode != RTE_ETH_MQ_RX_NONE &&
	    conf->rxmode.mq_mode != RTE_ETH_MQ_RX_RSS) {
		AF_XDP_PORT_LOG(ERR, port, "Rx multi-queue mode %d is not supported",
				conf->rxmode.mq_mode);
		return -ENOTSUP;
	}
	if (conf->rxmode.mq_mode == RTE_ETH_MQ_RX_RSS)
		AF_XDP_PORT_LOG(INFO, port,
				"RSS is the kernel's: configure it on %s with ethtool -X; each queue gets what the interface steers to its channel",
				port->args.iface);
	/* ethdev checked the offloads against dev_info's: the kernel has them. */
	ret = af_xdp_rx_offload_configure(port, conf->rxmode.offloads,
					  (conf->rxmode.mq_mode & RTE_ETH_MQ_RX_RSS_FLAG) != 0);
	if (ret != 0)
		return ret;
	ret = af_xdp_frame_configure(dev);
	return ret != 0 ? ret : af_xdp_intr_configure(dev);
}

static int
af_xdp_dev_info(struct rte_eth_dev *dev, struct rte_eth_dev_info *info)
{
	struct af_xdp_port *port = port_of(dev);

	info->if_index = (uint32_t)port->ifindex;
	info->max_mac_addrs = 1;
	info->max_rx_queues = (uint16_t)port->args.queue_count;
	info->max_tx_queues = (uint16_t)port->args.queue_count;
	/* Data room must hold a whole chunk: buf_len >= AF_XDP_CHUNK_MIN. */
	info->min_rx_bufsize = AF_XDP_CHUNK_MIN - RTE_PKTMBUF_HEADROOM;
	info->rx_offload_capa = af_xdp_rx_offload_capa(port);
	/*
	 * The hash is the interface's (veth: the flow's skb hash), over the
	 * addresses and ports; RSS itself is the kernel's (ethtool -X).
	 */
	if (info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_RSS_HASH)
		info->flow_type_rss_offloads = RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP;
	/* Checksums the kernel cannot complete, the driver computes: always offered. */
	info->tx_offload_capa = RTE_ETH_TX_OFFLOAD_MULTI_SEGS | AF_XDP_TX_CSUM_OFFLOADS;
	info->rx_desc_lim = (struct rte_eth_desc_lim) {
		.nb_max = AF_XDP_RING_MAX, .nb_min = AF_XDP_RING_MIN, .nb_align = 1,
	};
	info->tx_desc_lim = info->rx_desc_lim;
	/* max_rx_pktlen, max_mtu, the scatter offload, Tx segments. */
	af_xdp_frame_dev_info(port, info);
	info->default_rxportconf = (struct rte_eth_dev_portconf) {
		.burst_size = AF_XDP_RX_BATCH, .ring_size = AF_XDP_RING_DEFAULT, .nb_queues = 1,
	};
	info->default_txportconf = (struct rte_eth_dev_portconf) {
		.burst_size = AF_XDP_TX_BATCH, .ring_size = AF_XDP_RING_DEFAULT, .nb_queues = 1,
	};
	info->speed_capa = RTE_ETH_LINK_SPEED_FIXED;
	return 0;
}

static int
set_iface_flags(struct af_xdp_port *port, const char *what, unsigned int set,
		unsigned int clear)
{
	int ret = af_xdp_iface_change_flags(port->args.iface, set, clear);

	if (ret != 0)
		AF_XDP_PORT_LOG(ERR, port, "cannot %s on %s: %s", what, port->args.iface,
				strerror(-ret));
	return ret;
}

static int
af_xdp_promiscuous_enable(struct rte_eth_dev *dev)
{
	return set_iface_flags(port_of(dev), "enable promiscuous mode", IFF_PROMISC, 0);
}

static int
af_xdp_promiscuous_disable(struct rte_eth_dev *dev)
{
	return set_iface_flags(port_of(dev), "disable promiscuous mode", 0, IFF_PROMISC);
}

static int
af_xdp_allmulticast_enable(struct rte_eth_dev *dev)
{
	return set_iface_flags(port_of(dev), "enable all-multicast", IFF_ALLMULTI, 0);
}

static int
af_xdp_allmulticast_disable(struct rte_eth_dev *dev)
{
	return set_iface_flags(port_of(dev), "disable all-multicast", 0, IFF_ALLMULTI);
}

/*
 * ethdev has checked mtu against dev_info's limit; the frame policy checks
 * it against the offloads and, on a started port, against the queues
 * receiving and how their sockets are bound (af_xdp_frame.h).  A stopped
 * port's queues may yet be set up again with other mempools (Open vSwitch
 * sets the MTU first): they are checked at queue setup and start.
 */
static int
af_xdp_mtu_set(struct rte_eth_dev *dev, uint16_t mtu)
{
	struct af_xdp_port *port = port_of(dev);
	struct af_xdp_frame next;
	int ret;

	ret = af_xdp_frame_mtu_check(dev, mtu, &next);
	if (ret != 0)
		return ret;
	ret = af_xdp_iface_set_mtu(port->args.iface, mtu);
	if (ret != 0) {
		AF_XDP_PORT_LOG(ERR, port, "%s refused MTU %u: %s%s", port->args.iface, mtu,
				strerror(-ret),
				ret == -EINVAL ? " (with an XDP program attached, the kernel driver may allow less; a veth allows its peer a large MTU only if this side's XDP program is multi-buffer aware)" : "");
		return ret;
	}
	af_xdp_frame_mtu_commit(dev, &next);
	return 0;
}

static int
af_xdp_mac_addr_set(struct rte_eth_dev *dev, struct rte_ether_addr *mac)
{
	struct af_xdp_port *port = port_of(dev);
	int ret = af_xdp_iface_set_mac(port->args.iface, mac);

	if (ret != 0) {
		AF_XDP_PORT_LOG(ERR, port, "cannot set the MAC address of %s: %s%s",
				port->args.iface, strerror(-ret),
				ret == -EBUSY ? " (bring the interface down first)" : "");
		return ret;
	}
	port->mac = *mac;
	return 0;
}

/*
 * What closed sockets of queue index i left because the kernel still had
 * them (close_socket()): the Rx mbufs offered and not given back (held
 * marks), the Tx mbufs not completed (the Tx queue's held list), the
 * driver's UMEM pool (port->queues[i].kept_pool).  They go back once the
 * kernel has let go of the queue: known_free when the caller knows (a new
 * socket bound there, the probe just said so), else the probe is asked.
 * The Tx mbufs go first: they may be the kept pool's.  Returns how many
 * mbufs went back.
 */
static unsigned int
give_back_held(struct rte_eth_dev *dev, uint16_t i, bool known_free)
{
	struct af_xdp_port *port = port_of(dev);
	struct af_xdp_rx_queue *rxq = rxq_at(dev, i);
	struct af_xdp_tx_queue *txq = txq_at(dev, i);
	struct rte_mempool *kept = i < port->args.queue_count ? port->queues[i].kept_pool : NULL;
	unsigned int back = 0;

	if (kept == NULL && (rxq == NULL || !rxq->held) && (txq == NULL || txq->nb_held == 0))
		return 0;
	/* A probe that cannot run is no answer: af_xdp_queue_wait_free(). */
	if (!known_free && af_xdp_queue_free(port->ifindex, port->args.start_queue + i) <= 0)
		return 0;
	if (txq != NULL)
		back += af_xdp_txq_free_held(txq);
	if (rxq != NULL)
		back += af_xdp_rxq_reclaim_held(rxq);
	if (kept != NULL) {
		port->queues[i].kept_pool = NULL;
		rte_mempool_free(kept);
	}
	AF_XDP_PORT_LOG(DEBUG, port, "queue %u: the kernel let go of its old socket: %u mbufs back",
			i, back);
	return back;
}

/*
 * Rx queue i (rx) or Tx queue i (!rx) is released: what the kernel still
 * has of an old socket of that queue is left to it, and said.
 */
static void
give_up_held(struct rte_eth_dev *dev, uint16_t i, bool rx)
{
	struct af_xdp_port *port = port_of(dev);
	struct af_xdp_rx_queue *rxq = rxq_at(dev, i);
	struct af_xdp_tx_queue *txq = txq_at(dev, i);

	give_back_held(dev, i, false);
	if (rx && rxq != NULL && rxq->held) {
		AF_XDP_PORT_LOG(WARNING, port,
				"Rx queue %u released while the kernel still has its old socket (another process holds a copy of it, or frames are in flight): the mbufs that socket was offered stay out of mempool %s",
				i, rxq->mb_pool->name);
		rxq->held = false;
	}
	if (!rx && txq != NULL && txq->nb_held != 0)
		AF_XDP_PORT_LOG(WARNING, port,
				"Tx queue %u released while the kernel still has its old socket (another process holds a copy of it, or frames are in flight): its %u frames not completed stay out of their mempool",
				i, af_xdp_txq_drop_held(txq));
}

static int
af_xdp_rx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		      unsigned int socket_id, const struct rte_eth_rxconf *conf __rte_unused,
		      struct rte_mempool *mp)
{
	struct af_xdp_port *port = port_of(dev);
	enum af_xdp_umem_why why;
	struct af_xdp_rx_queue *rxq;
	char err[512];

	/* A mempool that cannot be a UMEM itself gets the driver's at start. */
	if (af_xdp_umem_owner_of(mp, &why, err, sizeof(err)) != 0) {
		AF_XDP_PORT_LOG(ERR, port, "Rx queue %u: %s", qid, err);
		return -EINVAL;
	}
	if (af_xdp_frame_check_mempool(dev, qid, mp, "Rx queue setup refused") != 0)
		return -EINVAL;
	rxq = rte_zmalloc_socket("af_xdp_rxq", sizeof(*rxq), RTE_CACHE_LINE_SIZE,
				 (int)socket_id);
	if (rxq == NULL)
		return -ENOMEM;
	rxq->mb_pool = mp;
	rxq->app_pool = mp;
	rxq->port_id = dev->data->port_id;
	rxq->queue_id = qid;
	rxq->nb_desc = af_xdp_ring_size(nb_desc);
	rxq->fd = -1;
	if (rxq->nb_desc != nb_desc)
		AF_XDP_PORT_LOG(INFO, port, "Rx queue %u: ring of %u descriptors (AF_XDP rings are powers of two, at least %u)",
				qid, rxq->nb_desc, AF_XDP_RING_MIN);
	dev->data->rx_queues[qid] = rxq;
	return 0;
}

static int
af_xdp_tx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		      unsigned int socket_id, const struct rte_eth_txconf *conf __rte_unused)
{
	struct af_xdp_port *port = port_of(dev);
	struct af_xdp_tx_queue *txq;

	txq = rte_zmalloc_socket("af_xdp_txq", sizeof(*txq), RTE_CACHE_LINE_SIZE,
				 (int)socket_id);
	if (txq == NULL)
		return -ENOMEM;
	txq->port_id = dev->data->port_id;
	txq->queue_id = qid;
	txq->nb_desc = af_xdp_ring_size(nb_desc);
	txq->fd = -1;
	if (txq->nb_desc != nb_desc)
		AF_XDP_PORT_LOG(INFO, port, "Tx queue %u: ring of %u descriptors (AF_XDP rings are powers of two, at least %u)",
				qid, txq->nb_desc, AF_XDP_RING_MIN);
	dev->data->tx_queues[qid] = txq;
	return 0;
}

static void
af_xdp_rx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	struct af_xdp_rx_queue *rxq = dev->data->rx_queues[qid];

	if (rxq != NULL)
		give_up_held(dev, qid, true);
	rte_free(rxq);
	dev->data->rx_queues[qid] = NULL;
}

static void
af_xdp_tx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	if (dev->data->tx_queues[qid] != NULL)
		give_up_held(dev, qid, false);
	rte_free(dev->data->tx_queues[qid]);
	dev->data->tx_queues[qid] = NULL;
}

static void
af_xdp_rxq_info(struct rte_eth_dev *dev, uint16_t qid, struct rte_eth_rxq_info *qinfo)
{
	const struct af_xdp_rx_queue *rxq = dev->data->rx_queues[qid];

	qinfo->mp = rxq->app_pool;
	qinfo->nb_desc = (uint16_t)RTE_MIN(rxq->nb_desc, (uint32_t)UINT16_MAX);
	qinfo->scattered_rx = rxq->scatter;
	qinfo->rx_buf_size = rte_pktmbuf_data_room_size(rxq->app_pool) - RTE_PKTMBUF_HEADROOM;
	qinfo->conf.rx_free_thresh = AF_XDP_RX_BATCH;
}

static void
af_xdp_txq_info(struct rte_eth_dev *dev, uint16_t qid, struct rte_eth_txq_info *qinfo)
{
	const struct af_xdp_tx_queue *txq = dev->data->tx_queues[qid];

	qinfo->nb_desc = (uint16_t)RTE_MIN(txq->nb_desc, (uint32_t)UINT16_MAX);
	qinfo->conf.tx_free_thresh = AF_XDP_TX_BATCH;
	qinfo->conf.offloads = dev->data->dev_conf.txmode.offloads;
}

/* Who completes the Tx checksums of queue qid, as the burst mode tells it. */
static const char *
tx_csum_info(const struct rte_eth_dev *dev, uint16_t qid)
{
	const struct af_xdp_tx_queue *txq =
		qid < dev->data->nb_tx_queues ? dev->data->tx_queues[qid] : NULL;

	if (txq == NULL || dev->tx_pkt_burst != af_xdp_tx_burst_csum)
		return "";
	return txq->csum_by_kernel ? ", TCP/UDP checksums completed by the kernel (Tx metadata)" :
				     ", checksums computed by the driver";
}

static int
af_xdp_burst_mode(struct rte_eth_dev *dev, uint16_t qid, struct rte_eth_burst_mode *mode,
		  bool rx)
{
	struct af_xdp_port *port = port_of(dev);
	const struct af_xdp_socket *sock = qid < port->nb_socks ? port->queues[qid].sock : NULL;
	const char *how = sock == NULL ? "not started" : sock->zero_copy ? "zero-copy" : "copy";
	const char *steer = port->redirect == AF_XDP_REDIRECT_DIRECT ? ", steered by bpf_redirect_xsk" :
			    port->redirect == AF_XDP_REDIRECT_MAP ? ", steered by bpf_redirect_map" : "";
	const struct af_xdp_rx_queue *rxq = qid < dev->data->nb_rx_queues ?
					    dev->data->rx_queues[qid] : NULL;
	const bool copy = dev->rx_pkt_burst == af_xdp_rx_burst_copy;
	struct af_xdp_rx_burst_kind kind;
	const char *build = af_xdp_rx_burst_name(copy && rxq != NULL ? rxq->copy_inner :
						 dev->rx_pkt_burst, &kind);

	if (rx)
		snprintf(mode->info, sizeof(mode->info),
			 "AF_XDP batched Rx (%s build%s%s%s), %d descriptors per batch, %s mode%s%s",
			 build != NULL ? build : "none",
			 kind.multi_buffer ? ", frames of several descriptors" : "",
			 kind.meta ? ", Rx offloads from the XDP metadata" : "",
			 kind.cksum ? ", IPv4 header checksums checked" : "",
			 AF_XDP_RX_BATCH, how, steer,
			 copy ? ", copied from the driver's UMEM into the mempool's mbufs" : "");
	else
		snprintf(mode->info, sizeof(mode->info),
			 "AF_XDP batched Tx, %s, %s mode%s",
			 port->own_umem ? "each frame copied into the driver's UMEM" :
			 "mbufs of the UMEM sent in place", how, tx_csum_info(dev, qid));
	return 0;
}

static int
af_xdp_rx_burst_mode(struct rte_eth_dev *dev, uint16_t qid, struct rte_eth_burst_mode *mode)
{
	return af_xdp_burst_mode(dev, qid, mode, true);
}

static int
af_xdp_tx_burst_mode(struct rte_eth_dev *dev, uint16_t qid, struct rte_eth_burst_mode *mode)
{
	return af_xdp_burst_mode(dev, qid, mode, false);
}

/*
 * Busy polling runs the interface's NAPI loop in our syscalls.  Failing to
 * set it up is an error when the user asked for it; when it is the default,
 * a notice.
 */
static int
setup_busy_poll(struct af_xdp_port *port, struct af_xdp_rx_queue *rxq)
{
	int budget = (int)port->args.busy_budget;
	int ret;

	rxq->busy_poll = false;
	if (budget == 0)
		return 0;
	ret = af_xdp_socket_busy_poll(rxq->fd, budget);
	if (ret != 0) {
		if (port->args.busy_budget_given) {
			AF_XDP_PORT_LOG(ERR, port,
					"queue %u: busy polling (busy_budget=%d) refused by the kernel: %s; it needs Linux 5.11 and CAP_NET_ADMIN; use busy_budget=0 to run without",
					rxq->queue_id, budget, strerror(-ret));
			return ret;
		}
		AF_XDP_PORT_LOG(NOTICE, port, "queue %u: busy polling unavailable (%s): off",
				rxq->queue_id, strerror(-ret));
		return 0;
	}
	/*
	 * The options succeed on every interface, but only do something where
	 * the socket gets a NAPI id, which the kernel gives it with the first
	 * frame: af_xdp_rx_check_busy_poll looks then.  veth gives one on some
	 * kernels, not on others (6.12's XDP path and the patched kernel's
	 * zero-copy: yes; 6.18's: no), so it is looked at, never assumed.
	 */
	rxq->busy_poll = true;
	rxq->busy_poll_asked = port->args.busy_budget_given;
	rxq->busy_poll_check = true;
	return 0;
}

static void
unplug_sockets(struct af_xdp_port *port)
{
	uint16_t i;

	for (i = 0; i < port->nb_socks; i++) {
		const struct af_xdp_socket *sock = port->queues[i].sock;

		if (sock != NULL && sock->rx.size != 0)
			af_xdp_prog_remove_socket(port, sock->netdev_queue);
	}
}

/*
 * Stop steering frames to the sockets: out of the XSKMAP (so out of reach
 * of every program that steers through the map: ours, the user's, a device
 * plugin's), and the program detached if we were its last user.  Frames
 * then go to the kernel stack.
 */
static void
unplug(struct af_xdp_port *port)
{
	unplug_sockets(port);
	af_xdp_prog_detach(port);
}

/*
 * Close the socket of queue index i, and give back to their mempools the
 * mbufs it held once the kernel has let go of it: the Tx frames not
 * completed and every mbuf offered in the fill ring that did not come
 * back.  What the kernel reports decides, not the interface's driver: the
 * queue found free (af_xdp_queue_wait_free()) means the socket is gone and
 * its pool released, a NIC's zero-copy buffers included.  It usually is
 * within a few milliseconds of the close (the pool's release is deferred
 * work).  Otherwise - another process holds a copy of the descriptor, copy
 * mode's Tx skbs are still in flight, a NIC's driver is slow to let go -
 * the mbufs stay out of the mempool, marked (Rx) or listed (Tx), until the
 * queue is found free: at the next start, stop or queue release
 * (give_back_held()).
 */
static void
close_socket(struct rte_eth_dev *dev, uint16_t i)
{
	struct af_xdp_port *port = port_of(dev);
	struct af_xdp_socket *sock = port->queues[i].sock;
	struct af_xdp_rx_queue *rxq = rxq_at(dev, i);
	struct af_xdp_tx_queue *txq = txq_at(dev, i);
	const uint32_t queue = sock->netdev_queue;
	struct rte_mempool *own = sock->own_pool;
	bool released;
	unsigned int back = 0;

	if (rxq != NULL && rxq->fd != sock->fd)
		rxq = NULL;
	af_xdp_stats_fold_socket(port, i, sock->fd);
	/* The completions that come in a bounded while; the rest are held. */
	if (txq != NULL && txq->fd == sock->fd)
		back += af_xdp_txq_release(txq);
	af_xdp_socket_close(sock);
	port->queues[i].sock = NULL;
	released = af_xdp_queue_wait_free(port->ifindex, queue);
	if (released) {
		/* The queue is free: a socket held before is gone too. */
		back += give_back_held(dev, i, true);
		if (rxq != NULL)
			back += af_xdp_rxq_reclaim(rxq);
	} else if (rxq != NULL) {
		af_xdp_rxq_hold(rxq);
	}
	if (rxq != NULL) {
		af_xdp_rxq_unbind(rxq);
		rxq->mb_pool = rxq->app_pool;
	}
	/*
	 * The driver's UMEM goes with its socket once the kernel is done with
	 * it (the application's mbufs were never the kernel's); else it is
	 * kept until the queue is bound again or found free.
	 */
	if (own != NULL && released) {
		rte_mempool_free(own);
	} else if (own != NULL) {
		if (port->queues[i].kept_pool != NULL)
			AF_XDP_PORT_LOG(WARNING, port,
					"queue %u: the driver's UMEM %s of an earlier socket is still held by the kernel: left allocated",
					i, port->queues[i].kept_pool->name);
		port->queues[i].kept_pool = own;
	}
	if (!released)
		AF_XDP_PORT_LOG(WARNING, port,
				"queue %u: the kernel still has the socket %u ms after it closed here (another process holds a copy of it, Tx frames are in flight, or the interface's driver has not given back its zero-copy buffers): %u Tx frames and the fill ring's mbufs are kept from the mempool until it lets go (looked at again at the next start, stop and queue release)",
				i, AF_XDP_CLOSE_WAIT_MS, txq != NULL ? txq->nb_held : 0);
	AF_XDP_PORT_LOG(DEBUG, port, "queue %u: socket closed, %u mbufs back to their mempool",
			i, back);
}

static void
close_sockets(struct rte_eth_dev *dev)
{
	struct af_xdp_port *port = port_of(dev);
	uint16_t i;

	for (i = 0; i < port->nb_socks; i++)
		if (port->queues[i].sock != NULL)
			close_socket(dev, i);
	port->nb_socks = 0;
}

/* Whether the interface's zero-copy transmit takes checksum requests. */
static enum af_xdp_zc_tx_csum
zc_tx_csum(const struct af_xdp_port *port)
{
	return af_xdp_zc_tx_csum(port->xsk_features_known, port->xsk_features);
}

/* The socket of queue index i serves its Rx and Tx queues. */
static int
serve_queues(struct rte_eth_dev *dev, uint16_t i, const struct af_xdp_socket *sock)
{
	struct af_xdp_port *port = port_of(dev);
	const struct af_xdp_umem_layout *layout = af_xdp_umem_layout_of(sock->umem);
	struct af_xdp_rx_queue *rxq = rxq_at(dev, i);
	struct af_xdp_tx_queue *txq = txq_at(dev, i);
	int ret;

	ret = af_xdp_frame_check_socket(dev, i, sock);
	if (ret != 0)
		return ret;
	if (txq != NULL) {
		uint32_t tx_meta_len = af_xdp_umem_tx_meta_len(sock->umem);
		const char *why;

		af_xdp_txq_bind(txq, &sock->tx, &sock->comp, layout, tx_meta_len, sock->zero_copy,
				af_xdp_umem_pool(sock->umem), sock->fd);
		af_xdp_txq_set_csum(txq, af_xdp_tx_csum_by_kernel(port->args.tx_csum, tx_meta_len,
								  sock->zero_copy, zc_tx_csum(port),
								  &why));
	}
	/* The new socket is bound to the queue: the old ones, and their UMEMs, are gone. */
	give_back_held(dev, i, true);
	if (rxq == NULL)
		return 0;
	/* The fill ring takes from the UMEM's pool: the driver's, or the application's. */
	rxq->mb_pool = sock->own_pool != NULL ? sock->own_pool : rxq->app_pool;
	af_xdp_rxq_bind(rxq, &sock->rx, &sock->fill, layout, sock->fd);
	rxq->scatter = port->frame.scatter;
	rxq->zero_copy = sock->zero_copy;
	/* Not with Rx interrupts: af_xdp_intr.c says why. */
	if (!af_xdp_intr_rxq(dev) && setup_busy_poll(port, rxq) != 0)
		return -EINVAL;
	if (af_xdp_rxq_fill(rxq) == 0) {
		AF_XDP_PORT_LOG(ERR, port,
				"Rx queue %u: mempool %s has no %u free mbufs for the fill ring; give it more mbufs",
				i, rxq->mb_pool->name, AF_XDP_RX_BATCH);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Whether the port's sockets are on UMEMs of the driver's: where an Rx
 * queue's mempool cannot be one (pinned external buffers; areas apart with
 * memory not DPDK's between), all of them, so that the port has one
 * receive burst.  Said once, with the first such queue's reason.
 */
static void
decide_umem_owner(struct rte_eth_dev *dev)
{
	struct af_xdp_port *port = port_of(dev);
	uint16_t i;

	port->own_umem = false;
	port->own_umem_why = AF_XDP_UMEM_WHY_NONE;
	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		const struct af_xdp_rx_queue *rxq = dev->data->rx_queues[i];
		enum af_xdp_umem_why why;
		char err[512];

		if (rxq == NULL ||
		    af_xdp_umem_owner_of(rxq->app_pool, &why, err, sizeof(err)) != 0 ||
		    why == AF_XDP_UMEM_WHY_NONE)
			continue;
		port->own_umem = true;
		port->own_umem_why = why;
		AF_XDP_PORT_LOG(NOTICE, port,
				"Rx queue %u: %s; so the driver owns the UMEMs of the port's queues and copies each frame once between them and the application's mbufs (state queue.<n>.umem.owner = driver, xstats rx_q<n>_copies, tx_q<n>_copies)",
				i, err);
		return;
	}
}

/*
 * A socket per queue index; bound for multi-buffer frames where the frame
 * policy says (af_xdp_frame_start(): the MTU's frames take several chunks).
 */
static int
open_sockets(struct rte_eth_dev *dev, bool multi_buffer)
{
	struct af_xdp_port *port = port_of(dev);
	struct af_xdp_rx_queue *rxq0 = dev->data->rx_queues[0];
	uint16_t i, n = nb_sockets(dev);
	unsigned int mtu = RTE_ETHER_MTU;
	int ret;

	for (i = 0; i < n; i++) {
		struct af_xdp_rx_queue *rxq = rxq_at(dev, i);
		struct af_xdp_tx_queue *txq = txq_at(dev, i);
		struct rte_mempool *mp = rxq != NULL ? rxq->app_pool : rxq0->app_pool;
		struct af_xdp_socket *sock;

		sock = af_xdp_socket_open(port, i, mp, rxq != NULL ? rxq->nb_desc : 0,
					  txq != NULL ? txq->nb_desc : 0, multi_buffer,
					  port->own_umem);
		if (sock == NULL)
			return -EIO;
		port->queues[i].sock = sock;
		port->nb_socks = i + 1;
		ret = serve_queues(dev, i, sock);
		if (ret != 0)
			return ret;
	}
	af_xdp_iface_mtu(port->args.iface, &mtu);
	af_xdp_frame_set_tx_limits(dev, mtu);
	return 0;
}

static int
plug_sockets(struct af_xdp_port *port)
{
	uint16_t i;
	int ret;

	for (i = 0; i < port->nb_socks; i++) {
		const struct af_xdp_socket *sock = port->queues[i].sock;

		if (sock->rx.size == 0)
			continue;	/* Tx only: nothing to steer to it */
		ret = af_xdp_prog_add_socket(port, sock->netdev_queue, sock->fd);
		if (ret != 0)
			return ret;
	}
	return 0;
}

static void
set_queue_states(struct rte_eth_dev *dev, uint8_t state)
{
	uint16_t i;

	for (i = 0; i < dev->data->nb_rx_queues; i++)
		dev->data->rx_queue_state[i] = state;
	for (i = 0; i < dev->data->nb_tx_queues; i++)
		dev->data->tx_queue_state[i] = state;
}

/*
 * The checksum build of the transmit burst only when a Tx checksum offload
 * is configured (the queues' can only be the port's: none is per queue),
 * so that the plain one never looks at a frame's flags; the plain one
 * zeroing the Tx metadata's flags on a zero-copy socket with Tx metadata
 * (af_xdp_tx.c says which kernels read them).  Says once who completes the
 * L4 checksums: queue 0's socket speaks for all, as every socket of the
 * port has the same mode and kernel.
 */
static void
select_tx_burst(struct rte_eth_dev *dev)
{
	struct af_xdp_port *port = port_of(dev);
	const struct af_xdp_socket *sock = port->queues[0].sock;
	const struct af_xdp_tx_queue *txq = txq_at(dev, 0);
	const char *why;

	if ((dev->data->dev_conf.txmode.offloads & AF_XDP_TX_CSUM_OFFLOADS) == 0) {
		dev->tx_pkt_burst = txq != NULL && txq->meta_clear ? af_xdp_tx_burst_meta_clear :
				    af_xdp_tx_burst;
		return;
	}
	dev->tx_pkt_burst = af_xdp_tx_burst_csum;
	if (af_xdp_tx_csum_by_kernel(port->args.tx_csum, af_xdp_umem_tx_meta_len(sock->umem),
				     sock->zero_copy, zc_tx_csum(port), &why))
		AF_XDP_PORT_LOG(INFO, port,
				"Tx checksums: TCP and UDP completed by the kernel (AF_XDP Tx metadata), IPv4 headers by the driver");
	else
		AF_XDP_PORT_LOG(NOTICE, port, "Tx checksums computed by the driver: %s", why);
}

/* The mbuf flags the metadata in force may set: known once the program is attached. */
static void
set_rx_meta_flags(struct rte_eth_dev *dev)
{
	const struct af_xdp_port *port = port_of(dev);
	uint64_t ol = af_xdp_rx_meta_ol_flags(port->rx_meta, port->rx_timestamp_flag);
	uint16_t i;

	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		struct af_xdp_rx_queue *rxq = rxq_at(dev, i);

		if (rxq == NULL)
			continue;
		rxq->rx_meta_ol = ol;
		rxq->timestamp_offset = port->rx_timestamp_offset;
	}
}

/*
 * A started port lends its sockets and its program's counters map, as
 * copies, to secondary processes (af_xdp_mp.c) and to its own statistics
 * and state, which telemetry reads from its own thread; until the stop
 * withdraws them, they are not closed.
 */
static void
lend_sockets(struct af_xdp_port *port)
{
	int fds[RTE_MAX_QUEUES_PER_PORT];
	uint16_t i, n = (uint16_t)RTE_MIN(port->nb_socks, (unsigned int)RTE_MAX_QUEUES_PER_PORT);

	for (i = 0; i < n; i++)
		fds[i] = port->queues[i].sock != NULL ? port->queues[i].sock->fd : -1;
	if (af_xdp_lend_publish(port->name, fds, n, af_xdp_prog_fallbacks_fd(port)) != 0)
		AF_XDP_PORT_LOG(WARNING, port,
				"no memory to lend the sockets: statistics and secondary processes miss the kernel's counters until the next start");
}

/* On the driver's UMEMs: the copy burst, over the burst of the port's kind. */
static void
use_copy_burst(struct rte_eth_dev *dev)
{
	uint16_t i;

	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		struct af_xdp_rx_queue *rxq = rxq_at(dev, i);

		if (rxq != NULL)
			rxq->copy_inner = dev->rx_pkt_burst;
	}
	dev->rx_pkt_burst = af_xdp_rx_burst_copy;
}

static int af_xdp_dev_stop(struct rte_eth_dev *dev);

static int
af_xdp_dev_start(struct rte_eth_dev *dev)
{
	struct af_xdp_port *port = port_of(dev);
	struct af_xdp_rx_burst_kind kind;
	const char *rx_build;
	bool multi_buffer;
	int ret;

	ret = af_xdp_frame_start(dev, &multi_buffer);
	if (ret != 0)
		return ret;
	decide_umem_owner(dev);
	ret = open_sockets(dev, multi_buffer);
	if (ret == 0)
		ret = af_xdp_prog_attach(port);
	if (ret == 0)
		ret = plug_sockets(port);
	if (ret != 0) {
		unplug(port);
		close_sockets(dev);
		AF_XDP_PORT_LOG(ERR, port, "start failed; %s is left as it was", port->args.iface);
		return ret;
	}
	set_rx_meta_flags(dev);
	/* As the kernel bound them: a socket sharing a UMEM takes its owner's. */
	kind = (struct af_xdp_rx_burst_kind){
		.multi_buffer = port->queues[0].sock->multi_buffer,
		.meta = port->rx_meta != 0,
		.cksum = port->rx_cksum,
	};
	dev->data->scattered_rx = kind.multi_buffer && port->frame.scatter;
	dev->rx_pkt_burst = af_xdp_rx_burst_select(&kind, &rx_build);
	if (port->own_umem)
		use_copy_burst(dev);
	AF_XDP_PORT_LOG(INFO, port, "receiving with the %s build of the batched receive%s%s",
			rx_build, kind.multi_buffer ? ", frames of several descriptors" : "",
			kind.cksum ? ", IPv4 header checksums checked" : "");
	select_tx_burst(dev);
	lend_sockets(port);
	port->started = true;
	af_xdp_state_started(dev, rx_build);
	set_queue_states(dev, RTE_ETH_QUEUE_STATE_STARTED);
	af_xdp_link_update(dev, 0);
	/* intr_conf.lsc asks for link events: a port that cannot give them does not start. */
	ret = af_xdp_link_events_start(dev);
	if (ret != 0) {
		af_xdp_dev_stop(dev);
		AF_XDP_PORT_LOG(ERR, port, "start failed; %s is left as it was", port->args.iface);
		return ret;
	}
	return 0;
}

static int
af_xdp_dev_stop(struct rte_eth_dev *dev)
{
	struct af_xdp_port *port = port_of(dev);

	if (!port->started)
		return 0;
	af_xdp_link_events_stop(dev);
	/* Before any socket or map closes: a secondary's request, a telemetry read may be under way. */
	af_xdp_lend_withdraw(port->name);
	port->started = false;
	af_xdp_state_stopped(dev);
	unplug(port);
	af_xdp_intr_disarm_all(dev);
	close_sockets(dev);
	set_queue_states(dev, RTE_ETH_QUEUE_STATE_STOPPED);
	af_xdp_link_update(dev, 0);
	return 0;
}

/*
 * Applications switch promiscuous and all-multicast on as a matter of course
 * (testpmd does), and may set the MAC address: the interface gets back the
 * state it had before us when the process's last port on it closes.
 */
static void
report_not_given_back(const char *iface, int err)
{
	AF_XDP_LOG(WARNING, "cannot give %s back the promiscuous, all-multicast and MAC address settings it had before this process: %s",
		   iface, strerror(-err));
}

/*
 * Open vSwitch, and other applications, exit without closing their ports:
 * at a normal exit (exit(), a return from main) the interfaces get their
 * state back all the same.  Nothing can run on SIGKILL, a crash, _exit() or
 * a signal's default action; a signal handler is the application's.
 */
RTE_FINI(af_xdp_give_back_at_exit)
{
	unsigned int n = af_xdp_iface_give_back_all(report_not_given_back);

	if (n != 0)
		AF_XDP_LOG(INFO, "at exit, %u interface%s of ports never closed got back their promiscuous, all-multicast and MAC address settings",
			   n, n == 1 ? "" : "s");
}

static int
af_xdp_dev_close(struct rte_eth_dev *dev)
{
	struct af_xdp_port *port = port_of(dev);
	uint16_t i;
	int ret;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return 0;
	af_xdp_dev_stop(dev);
	for (i = 0; i < dev->data->nb_rx_queues; i++)
		af_xdp_rx_queue_release(dev, i);
	for (i = 0; i < dev->data->nb_tx_queues; i++)
		af_xdp_tx_queue_release(dev, i);
	for (i = 0; i < port->args.queue_count; i++) {
		give_back_held(dev, i, false);
		if (port->queues[i].kept_pool != NULL)
			AF_XDP_PORT_LOG(WARNING, port,
					"queue %u: the driver's UMEM %s stays allocated: the kernel still holds the socket that used it",
					i, port->queues[i].kept_pool->name);
	}
	af_xdp_intr_release(dev);
	ret = af_xdp_iface_give_back(port->args.iface);
	if (ret != 0)
		report_not_given_back(port->args.iface, ret);
	AF_XDP_PORT_LOG(INFO, port, "closed; %s is back to the kernel", port->args.iface);
	af_xdp_mp_uninit_primary();
	return 0;
}

static const struct eth_dev_ops af_xdp_ops = {
	.dev_configure = af_xdp_dev_configure,
	.dev_start = af_xdp_dev_start,
	.dev_stop = af_xdp_dev_stop,
	.dev_close = af_xdp_dev_close,
	.dev_set_link_up = af_xdp_link_set_up,
	.dev_set_link_down = af_xdp_link_set_down,
	.dev_infos_get = af_xdp_dev_info,
	.read_clock = af_xdp_rx_offload_read_clock,
	.link_update = af_xdp_link_update,
	.promiscuous_enable = af_xdp_promiscuous_enable,
	.promiscuous_disable = af_xdp_promiscuous_disable,
	.allmulticast_enable = af_xdp_allmulticast_enable,
	.allmulticast_disable = af_xdp_allmulticast_disable,
	.mtu_set = af_xdp_mtu_set,
	.mac_addr_set = af_xdp_mac_addr_set,
	.rx_queue_setup = af_xdp_rx_queue_setup,
	.tx_queue_setup = af_xdp_tx_queue_setup,
	.rx_queue_release = af_xdp_rx_queue_release,
	.tx_queue_release = af_xdp_tx_queue_release,
	.rxq_info_get = af_xdp_rxq_info,
	.txq_info_get = af_xdp_txq_info,
	.rx_burst_mode_get = af_xdp_rx_burst_mode,
	.tx_burst_mode_get = af_xdp_tx_burst_mode,
	.stats_get = af_xdp_stats_get,
	.stats_reset = af_xdp_stats_reset,
	.xstats_get = af_xdp_xstats_get,
	.xstats_get_names = af_xdp_xstats_get_names,
	.xstats_reset = af_xdp_stats_reset,
	.rx_queue_intr_enable = af_xdp_rx_queue_intr_enable,
	.rx_queue_intr_disable = af_xdp_rx_queue_intr_disable,
	.get_monitor_addr = af_xdp_get_monitor_addr,
	.eth_dev_priv_dump = af_xdp_state_dump,
};

/*
 * A secondary process reads and resets statistics (dpdk-proc-info
 * --stats-reset, --xstats-reset): the same counters in shared memory and
 * kernel-counter bases as the primary's, the kernel's read through the
 * primary's sockets; and it dumps the port's state as the primary does.
 * It has no sockets to move packets, and leaves the interface alone.
 */
static const struct eth_dev_ops af_xdp_secondary_ops = {
	.dev_infos_get = af_xdp_dev_info,
	.read_clock = af_xdp_rx_offload_read_clock,
	.link_update = af_xdp_link_update,
	.rxq_info_get = af_xdp_rxq_info,
	.txq_info_get = af_xdp_txq_info,
	.stats_get = af_xdp_stats_get,
	.stats_reset = af_xdp_stats_reset,
	.xstats_get = af_xdp_xstats_get,
	.xstats_get_names = af_xdp_xstats_get_names,
	.xstats_reset = af_xdp_stats_reset,
	.eth_dev_priv_dump = af_xdp_state_dump,
};

static int
probe_secondary(struct rte_vdev_device *vdev, const char *name)
{
	struct rte_eth_dev *dev = rte_eth_dev_attach_secondary(name);

	if (dev == NULL) {
		AF_XDP_LOG(ERR, "%s: the primary process has no such port", name);
		return -ENODEV;
	}
	dev->dev_ops = &af_xdp_secondary_ops;
	dev->device = &vdev->device;
	dev->rx_pkt_burst = rte_eth_pkt_burst_dummy;
	dev->tx_pkt_burst = rte_eth_pkt_burst_dummy;
	rte_eth_dev_probing_finish(dev);
	return 0;
}

/* Checks of the devargs against the interface itself. */
static int
check_interface(const char *name, struct af_xdp_port *port)
{
	const struct af_xdp_devargs *args = &port->args;
	uint32_t max = 0, configured = 0;
	int ret;

	port->ifindex = af_xdp_iface_index(args->iface);
	if (port->ifindex < 0) {
		AF_XDP_LOG(ERR, "%s: no interface %s=%s in this network namespace (%s); check the name with 'ip link'",
			   name, AF_XDP_ARG_IFACE, args->iface, strerror(-port->ifindex));
		return -ENODEV;
	}
	ret = af_xdp_iface_channels(args->iface, &max, &configured);
	if (ret != 0) {
		AF_XDP_LOG(ERR, "%s: cannot count the queues of %s: %s", name, args->iface,
			   strerror(-ret));
		return ret;
	}
	if (args->start_queue + args->queue_count > configured) {
		AF_XDP_LOG(ERR, "%s: %s=%u %s=%u asks for queues %u..%u but %s has %u queue%s (0..%u)%s",
			   name, AF_XDP_ARG_START_QUEUE, args->start_queue,
			   AF_XDP_ARG_QUEUE_COUNT, args->queue_count, args->start_queue,
			   args->start_queue + args->queue_count - 1, args->iface, configured,
			   configured == 1 ? "" : "s", configured - 1,
			   max > configured ? "; raise them with ethtool -L <iface> combined <n>" :
			   "; lower start_queue/queue_count");
		return -EINVAL;
	}
	if (args->start_queue + args->queue_count < configured || args->start_queue > 0)
		AF_XDP_LOG(INFO, "%s: %s has %u queues and this port binds %u..%u: frames the interface steers to the others go to the kernel stack",
			   name, args->iface, configured, args->start_queue,
			   args->start_queue + args->queue_count - 1);
	port->max_queues = RTE_MAX(max, configured);
	ret = af_xdp_iface_mac(args->iface, &port->mac);
	if (ret != 0) {
		AF_XDP_LOG(ERR, "%s: cannot read the MAC address of %s: %s", name, args->iface,
			   strerror(-ret));
		return ret;
	}
	return 0;
}

/*
 * The port, sized for its queue_count queues, with the devargs in it; NULL
 * after logging why.  The devargs are parsed on the heap: they hold two
 * paths.
 */
static struct rte_eth_dev *
allocate_port(struct rte_vdev_device *vdev, const char *name)
{
	struct af_xdp_devargs *args = malloc(sizeof(*args));
	struct rte_eth_dev *dev = NULL;
	struct af_xdp_port *port;
	char err[512];

	if (args == NULL)
		return NULL;
	if (af_xdp_devargs_parse(rte_vdev_device_args(vdev), args, err, sizeof(err)) != 0) {
		AF_XDP_LOG(ERR, "%s: %s", name, err);
		goto out;
	}
	dev = rte_eth_vdev_allocate(vdev, sizeof(*port) +
				    args->queue_count * sizeof(port->queues[0]));
	if (dev == NULL) {
		AF_XDP_LOG(ERR, "%s: cannot allocate the port", name);
		goto out;
	}
	port = dev->data->dev_private;
	port->args = *args;
	strlcpy(port->name, name, sizeof(port->name));
	port->port_id = dev->data->port_id;
	port->xskmap_fd = -1;
out:
	free(args);
	return dev;
}

/*
 * What the kernel offers the port, each asked of it by doing it once (the
 * redirect's helper, multi-buffer's bind, the Rx-metadata program's load:
 * af_xdp_kernel.c, af_xdp_rx_offload.c), and what netlink says of the
 * interface: dev_info offers only what passed.  -ENOTSUP where redirect=
 * asks for what the kernel lacks.
 */
static int
probe_kernel(struct af_xdp_port *port)
{
	const struct af_xdp_kernel *k = af_xdp_kernel_probe();
	enum af_xdp_kernel_mb_why mb_why;
	struct af_xdp_netdev_features f;

	if (af_xdp_prog_choose_redirect(port) != 0)
		return -ENOTSUP;
	port->kernel_direct = k->has_direct;
	port->kernel_batched_map = k->batched_map;
	port->kernel_multi_buffer = af_xdp_kernel_multi_buffer(port->ifindex,
							       port->args.start_queue, &mb_why);
	port->kernel_multi_buffer_why = (uint8_t)mb_why;
	/* Where the kernel cannot answer, every _known stays false. */
	(void)af_xdp_iface_netdev_features(port->ifindex, &f);
	af_xdp_rx_offload_probe(port, &f);
	port->xsk_features_known = f.xsk_known;
	port->xsk_features = f.xsk;
	return 0;
}

static int
af_xdp_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct rte_eth_dev *dev;
	struct af_xdp_port *port;
	char drv[32];
	int ret;

	if (rte_eal_process_type() == RTE_PROC_SECONDARY)
		return probe_secondary(vdev, name);

	AF_XDP_LOG(NOTICE, "%s: probed by %s %s (extended AF_XDP PMD, built for DPDK %s)",
		   name, AF_XDP_PROJECT, AF_XDP_DIRECT_VERSION, af_xdp_dpdk_built_for());
	if (af_xdp_dpdk_check_running() != 0)
		return -ENOTSUP;

	dev = allocate_port(vdev, name);
	if (dev == NULL)
		return -EINVAL;
	port = dev->data->dev_private;
	ret = check_interface(name, port) != 0 ? -EINVAL : probe_kernel(port);
	if (ret == 0) {
		dev->data->mac_addrs = rte_zmalloc("af_xdp_mac", sizeof(struct rte_ether_addr), 0);
		if (dev->data->mac_addrs == NULL)
			ret = -ENOMEM;
	}
	if (ret == 0 && af_xdp_mp_init_primary() != 0)
		ret = -EIO;
	if (ret == 0) {
		ret = af_xdp_iface_keep(port->args.iface);
		if (ret != 0) {
			AF_XDP_LOG(ERR, "%s: cannot read the flags and MAC address of %s, given back at close: %s",
				   name, port->args.iface, strerror(-ret));
			af_xdp_mp_uninit_primary();
		}
	}
	if (ret != 0) {
		rte_eth_dev_release_port(dev);
		return ret;
	}
	*dev->data->mac_addrs = port->mac;
	dev->data->dev_link = (struct rte_eth_link) { .link_status = RTE_ETH_LINK_DOWN };
	dev->data->dev_flags |= RTE_ETH_DEV_AUTOFILL_QUEUE_XSTATS | RTE_ETH_DEV_INTR_LSC;
	dev->dev_ops = &af_xdp_ops;
	dev->rx_pkt_burst = af_xdp_rx_burst_baseline;
	dev->tx_pkt_burst = af_xdp_tx_burst;
	dev->tx_pkt_prepare = af_xdp_tx_prepare;
	rte_eth_dev_probing_finish(dev);
	AF_XDP_PORT_LOG(INFO, port, "port %u on %s (ifindex %d, %s, %u queue%s from %u, MAC " RTE_ETHER_ADDR_PRT_FMT ")",
			port->port_id, port->args.iface, port->ifindex,
			af_xdp_iface_driver(port->args.iface, drv, sizeof(drv)),
			port->args.queue_count, port->args.queue_count == 1 ? "" : "s",
			port->args.start_queue, RTE_ETHER_ADDR_BYTES(&port->mac));
	return 0;
}

static int
af_xdp_remove(struct rte_vdev_device *vdev)
{
	struct rte_eth_dev *dev = rte_eth_dev_allocated(rte_vdev_device_name(vdev));

	if (dev == NULL)
		return 0;
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return rte_eth_dev_release_port(dev);
	return rte_eth_dev_close(dev->data->port_id);
}

static struct rte_vdev_driver af_xdp_driver = {
	.probe = af_xdp_probe,
	.remove = af_xdp_remove,
};

RTE_PMD_REGISTER_VDEV(AF_XDP_DRIVER_NAME, af_xdp_driver);
RTE_PMD_REGISTER_PARAM_STRING(AF_XDP_DRIVER_NAME, AF_XDP_PARAMS_STRING);

/*
 * What dpdk-pmdinfo.py reads: DPDK's build generates this string for its own
 * drivers; we are built outside DPDK, so it is written here.
 */
__rte_used static const char af_xdp_pmd_info[] =
	"PMD_INFO_STRING= {\"name\": \"" RTE_STR(AF_XDP_DRIVER_NAME) "\", "
	"\"params\": \"" AF_XDP_PARAMS_STRING "\", \"pci_ids\": [], "
	"\"version\": \"" AF_XDP_PROJECT " " AF_XDP_DIRECT_VERSION "\"}";
