/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The frame-size, MTU and multi-buffer policy (af_xdp_frame.h).
 *
 * The kernel places a frame XDP_PACKET_HEADROOM into its chunk, and a chunk
 * is at most a page: a frame of one descriptor is at most its chunk less
 * that headroom (3840 bytes, an MTU of 3826, at 4 KiB pages; 1920, MTU
 * 1906, with testpmd's 2176-byte mbufs).  With AF_XDP multi-buffer
 * (XDP_USE_SG, Linux 6.6) and the Rx scatter offload, a frame may take
 * several descriptors: in copy mode up to MAX_SKB_FRAGS + 1, as many as the
 * kernel builds a transmitted skb of (a received frame forwarded must be
 * sendable), within the interface's own maximum MTU.
 *
 * dev_info reports what the best mempool would take, whatever mempools the
 * queues set up so far have, since applications set the MTU first and then
 * set up queues with a mempool sized for it (Open vSwitch does).  Each
 * mempool is checked against the MTU where the two meet: queue setup,
 * start, and an MTU change on a started port.
 */

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <ethdev_driver.h>
#include <rte_ethdev.h>

#include "af_xdp.h"
#include "af_xdp_frame.h"
#include "af_xdp_iface.h"
#include "af_xdp_kernel.h"
#include "af_xdp_tx.h"
#include "af_xdp_umem.h"

/* --- pure policy ---------------------------------------------------------------- */

int
af_xdp_frame_compute(struct af_xdp_frame *f, const struct af_xdp_frame_sys *sys,
		     uint32_t mtu, bool scatter, bool multi_seg_tx, char *err, size_t err_len)
{
	uint32_t frame = af_xdp_frame_of_mtu(mtu), one = sys->page_frame;

	if (frame > one && !sys->multi_buffer) {
		snprintf(err, err_len,
			 "MTU %u does not fit one UMEM chunk (frames of at most %u bytes: a page less %u bytes of XDP headroom, an MTU of %u), and this kernel has no AF_XDP multi-buffer to take frames of several (XDP_USE_SG, Linux 6.6 or later)",
			 mtu, one, AF_XDP_PACKET_HEADROOM, one - RTE_ETHER_HDR_LEN);
		return -EINVAL;
	}
	if (frame > one && !scatter) {
		snprintf(err, err_len,
			 "MTU %u takes frames of several UMEM chunks (one holds at most %u bytes, an MTU of %u): enable the Rx scatter offload (RTE_ETH_RX_OFFLOAD_SCATTER; testpmd --enable-scatter) to receive them as mbuf chains",
			 mtu, one, one - RTE_ETHER_HDR_LEN);
		return -EINVAL;
	}
	if (frame > one && frame > af_xdp_frame_port_max(sys, true)) {
		snprintf(err, err_len, "MTU %u is beyond what the interface and AF_XDP take: at most %u",
			 mtu, af_xdp_frame_port_max(sys, true) - RTE_ETHER_HDR_LEN);
		return -EINVAL;
	}
	memset(f, 0, sizeof(*f));
	f->sys = *sys;
	f->mtu = mtu;
	f->scatter = scatter;
	f->multi_seg_tx = multi_seg_tx;
	f->rx_segs = scatter && sys->multi_buffer ? (uint16_t)sys->max_segs : 1;
	return 0;
}

uint32_t
af_xdp_frame_port_max(const struct af_xdp_frame_sys *sys, bool multi_buffer)
{
	return RTE_MIN(sys->page_frame * (multi_buffer ? sys->max_segs : 1), sys->iface_max_frame);
}

uint32_t
af_xdp_frame_rx_limit(const struct af_xdp_frame *f, uint32_t chunk_frame, bool multi_buffer)
{
	if (!multi_buffer)
		return chunk_frame;
	return RTE_MIN(chunk_frame * f->sys.max_segs, af_xdp_frame_port_max(&f->sys, true));
}

enum af_xdp_frame_mb
af_xdp_frame_decide(const struct af_xdp_frame *f, uint32_t largest, uint32_t chunk_frame)
{
	if (!f->scatter && !f->multi_seg_tx)
		return AF_XDP_FRAME_MB_NOT_ASKED;
	if (!f->sys.multi_buffer)
		return AF_XDP_FRAME_MB_NO_KERNEL;
	return largest <= chunk_frame ? AF_XDP_FRAME_MB_FITS : AF_XDP_FRAME_MB_NEEDED;
}

void
af_xdp_frame_tx_limits(const struct af_xdp_frame *f, uint32_t mtu, bool multi_buffer,
		       uint32_t *max_pkt_len, uint16_t *max_segs)
{
	/* The interface sends frames of its MTU with a VLAN tag. */
	*max_pkt_len = af_xdp_frame_of_mtu(mtu) + RTE_VLAN_HLEN;
	*max_segs = multi_buffer ? (uint16_t)f->sys.max_segs : 1;
}

const char *
af_xdp_frame_mb_name(enum af_xdp_frame_mb mb)
{
	switch (mb) {
	case AF_XDP_FRAME_MB_NOT_ASKED:
		return "not-asked";
	case AF_XDP_FRAME_MB_NO_KERNEL:
		return "kernel-lacks";
	case AF_XDP_FRAME_MB_FITS:
		return "fits-one-chunk";
	case AF_XDP_FRAME_MB_NEEDED:
		return "frames-span-chunks";
	}
	return "unknown";
}

/* --- the ops' side --------------------------------------------------------------- */

static struct af_xdp_port *
port_of(struct rte_eth_dev *dev)
{
	return dev->data->dev_private;
}

/* What the kernel and the port's interface take now. */
static void
sys_read(const struct af_xdp_port *port, struct af_xdp_frame_sys *sys)
{
	unsigned int iface_max;

	sys->page_frame = (uint32_t)sysconf(_SC_PAGESIZE) - AF_XDP_PACKET_HEADROOM;
	sys->max_segs = af_xdp_kernel_max_skb_frags() + 1;
	sys->multi_buffer = port->kernel_multi_buffer;	/* found at probe */
	/* lo reports a maximum of 0: none. */
	sys->iface_max_frame =
		af_xdp_iface_max_mtu(port->args.iface, &iface_max) == 0 && iface_max != 0 ?
		af_xdp_frame_of_mtu(iface_max) : UINT32_MAX;
}

void
af_xdp_frame_dev_info(const struct af_xdp_port *port, struct rte_eth_dev_info *info)
{
	struct af_xdp_frame_sys sys;
	uint32_t max_frame;

	sys_read(port, &sys);
	max_frame = af_xdp_frame_port_max(&sys, sys.multi_buffer);
	info->max_rx_pktlen = max_frame;
	info->min_mtu = RTE_ETHER_MIN_MTU;
	info->max_mtu = (uint16_t)RTE_MIN(max_frame - RTE_ETHER_HDR_LEN, (uint32_t)UINT16_MAX);
	if (sys.multi_buffer)
		info->rx_offload_capa |= RTE_ETH_RX_OFFLOAD_SCATTER;
	/*
	 * With multi-buffer, a chain of the UMEM's mbufs may go in place, a
	 * descriptor a segment, up to what the kernel takes for one packet;
	 * without, a chain is copied into one UMEM mbuf whatever its number of
	 * segments (what limits it then is its length: af_xdp_tx.c).
	 */
	info->tx_desc_lim.nb_seg_max = sys.multi_buffer ? (uint16_t)sys.max_segs : UINT16_MAX;
	info->tx_desc_lim.nb_mtu_seg_max = info->tx_desc_lim.nb_seg_max;
}

int
af_xdp_frame_configure(struct rte_eth_dev *dev)
{
	struct af_xdp_port *port = port_of(dev);
	struct af_xdp_frame_sys sys;
	struct af_xdp_frame f;
	char err[512];

	sys_read(port, &sys);
	if (af_xdp_frame_compute(&f, &sys, dev->data->mtu,
				 dev->data->dev_conf.rxmode.offloads & RTE_ETH_RX_OFFLOAD_SCATTER,
				 dev->data->dev_conf.txmode.offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS,
				 err, sizeof(err)) != 0) {
		AF_XDP_PORT_LOG(ERR, port, "%s (%s)", err, port->args.iface);
		return -EINVAL;
	}
	port->frame = f;
	return 0;
}

/* Say why Rx queue qid's mempool mp, receiving frames of up to limit bytes, cannot take mtu. */
static void
mempool_refusal(const struct af_xdp_port *port, const struct af_xdp_frame *f, uint16_t qid,
		const struct rte_mempool *mp, uint32_t mtu, uint32_t limit, bool multi_buffer,
		const char *what)
{
	uint32_t frame = af_xdp_frame_of_mtu(mtu);

	if (multi_buffer)
		AF_XDP_PORT_LOG(ERR, port,
				"%s: the mempool %s of Rx queue %u holds frames of at most %u bytes in the %u descriptors a frame may take, and MTU %u needs %u; give the queue mbufs with a larger data room, or lower the MTU to %u",
				what, mp->name, qid, limit, f->sys.max_segs, mtu, frame,
				limit - RTE_ETHER_HDR_LEN);
	else
		AF_XDP_PORT_LOG(ERR, port,
				"%s: the mempool %s of Rx queue %u holds frames of at most %u bytes (%u-byte UMEM chunks less %u bytes of XDP headroom), and MTU %u needs %u; give the queue mbufs with a data room of at least %u bytes (testpmd: --mbuf-size), lower the MTU to %u%s",
				what, mp->name, qid, limit, limit + AF_XDP_PACKET_HEADROOM,
				AF_XDP_PACKET_HEADROOM, mtu, frame, frame + AF_XDP_PACKET_HEADROOM,
				limit - RTE_ETHER_HDR_LEN,
				f->sys.multi_buffer && !f->scatter ?
				", or enable the Rx scatter offload (testpmd --enable-scatter)" : "");
}

/*
 * Whether mp holds frames of policy f's MTU, received as f allows (a frame
 * of several descriptors with scatter and multi-buffer).
 */
static int
check_mempool(const struct af_xdp_port *port, const struct af_xdp_frame *f, uint16_t qid,
	      struct rte_mempool *mp, const char *what)
{
	bool multi_buffer = f->rx_segs > 1;
	uint32_t limit = af_xdp_frame_rx_limit(f, af_xdp_umem_chunk_frame(mp), multi_buffer);

	if (af_xdp_frame_of_mtu(f->mtu) <= limit)
		return 0;
	mempool_refusal(port, f, qid, mp, f->mtu, limit, multi_buffer, what);
	return -EINVAL;
}

int
af_xdp_frame_check_mempool(struct rte_eth_dev *dev, uint16_t qid, struct rte_mempool *mp,
			   const char *what)
{
	return check_mempool(port_of(dev), &port_of(dev)->frame, qid, mp, what);
}

int
af_xdp_frame_mtu_check(struct rte_eth_dev *dev, uint32_t mtu, struct af_xdp_frame *next)
{
	struct af_xdp_port *port = port_of(dev);
	const struct af_xdp_frame *now = &port->frame;
	struct af_xdp_frame_sys sys;
	char err[512];
	uint16_t i;

	sys_read(port, &sys);
	if (af_xdp_frame_compute(next, &sys, mtu, now->scatter, now->multi_seg_tx, err,
				 sizeof(err)) != 0) {
		AF_XDP_PORT_LOG(ERR, port, "%s (%s)", err, port->args.iface);
		return -EINVAL;
	}
	/* What the start decided stays: the sockets are bound so until the next. */
	next->largest = now->largest;
	next->chunk_frame = now->chunk_frame;
	next->mb = now->mb;
	next->multi_buffer = now->multi_buffer;
	if (!port->started)
		return 0;
	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		const struct af_xdp_rx_queue *rxq = dev->data->rx_queues[i];
		uint32_t chunk, limit;
		char what[64];

		if (rxq == NULL)
			continue;
		chunk = af_xdp_umem_chunk_frame(rxq->mb_pool);
		limit = af_xdp_frame_rx_limit(next, chunk, now->multi_buffer);
		if (af_xdp_frame_of_mtu(mtu) <= limit)
			continue;
		if (next->rx_segs > 1 && !now->multi_buffer &&
		    af_xdp_frame_of_mtu(mtu) <= af_xdp_frame_rx_limit(next, chunk, true)) {
			AF_XDP_PORT_LOG(ERR, port,
					"cannot set MTU %u on the started port: its frames of %u bytes take several chunks of the mempool %s of Rx queue %u (one holds %u), and the sockets were bound at start for frames of one (AF_XDP multi-buffer only where the MTU needs it, which keeps zero-copy); stop the port, set the MTU and start it again, which binds them for frames of several (Open vSwitch reconfigures a port so)",
					mtu, af_xdp_frame_of_mtu(mtu), rxq->mb_pool->name, i, chunk);
			return -EINVAL;
		}
		snprintf(what, sizeof(what), "cannot set MTU %u on the started port", mtu);
		mempool_refusal(port, next, i, rxq->mb_pool, mtu, limit, now->multi_buffer, what);
		return -EINVAL;
	}
	return 0;
}

void
af_xdp_frame_mtu_commit(struct rte_eth_dev *dev, const struct af_xdp_frame *next)
{
	port_of(dev)->frame = *next;
	af_xdp_frame_set_tx_limits(dev, next->mtu);
}

int
af_xdp_frame_start(struct rte_eth_dev *dev, bool *multi_buffer)
{
	struct af_xdp_port *port = port_of(dev);
	struct af_xdp_frame *f = &port->frame;
	uint32_t chunk = UINT32_MAX, limit;
	unsigned int iface_mtu;
	bool have_iface_mtu;
	uint16_t i;

	sys_read(port, &f->sys);
	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		const struct af_xdp_rx_queue *rxq = dev->data->rx_queues[i];

		if (rxq == NULL)
			continue;
		if (check_mempool(port, f, i, rxq->mb_pool, "cannot start") != 0)
			return -EINVAL;
		chunk = RTE_MIN(chunk, af_xdp_umem_chunk_frame(rxq->mb_pool));
	}
	/*
	 * The interface's own MTU may be larger than the port's (set with ip
	 * link): its frames arrive too, and decide with the port's.
	 */
	have_iface_mtu = af_xdp_iface_mtu(port->args.iface, &iface_mtu) == 0;
	f->largest = af_xdp_frame_of_mtu(have_iface_mtu ? RTE_MAX(f->mtu, iface_mtu) : f->mtu);
	f->chunk_frame = chunk;
	f->mb = af_xdp_frame_decide(f, f->largest, chunk);
	f->multi_buffer = f->mb == AF_XDP_FRAME_MB_NEEDED;
	*multi_buffer = f->multi_buffer;
	limit = af_xdp_frame_rx_limit(f, chunk, f->multi_buffer);
	if (have_iface_mtu && af_xdp_frame_of_mtu(iface_mtu) > limit)
		AF_XDP_PORT_LOG(WARNING, port,
				"%s has MTU %u, but frames longer than %u bytes do not fit the Rx mbufs and will be dropped by the kernel (rx_q<n>_dropped): lower the MTU to %u or give the Rx queues mbufs with a larger data room",
				port->args.iface, iface_mtu, limit, limit - RTE_ETHER_HDR_LEN);
	return 0;
}

int
af_xdp_frame_check_socket(struct rte_eth_dev *dev, uint16_t i, const struct af_xdp_socket *sock)
{
	struct af_xdp_port *port = port_of(dev);
	const struct af_xdp_frame *f = &port->frame;

	if (!f->multi_buffer || sock->multi_buffer)
		return 0;
	AF_XDP_PORT_LOG(ERR, port,
			"queue %u: frames of up to %u bytes take several chunks (one holds %u), but the socket is bound for frames of one: %s",
			i, f->largest, f->chunk_frame,
			af_xdp_umem_fd(sock->umem) != sock->fd ?
			"it shares a UMEM whose first socket was bound without AF_XDP multi-buffer (shared_umem=1: the first port to start decides); start that port with the same MTU and scatter offload" :
			"the kernel refused AF_XDP multi-buffer (XDP_USE_SG, Linux 6.6 or later); lower the MTU to what one chunk holds, or give the Rx queues mbufs with a larger data room");
	return -ENOTSUP;
}

void
af_xdp_frame_set_tx_limits(struct rte_eth_dev *dev, uint32_t mtu)
{
	struct af_xdp_port *port = port_of(dev);
	uint16_t i;

	for (i = 0; i < dev->data->nb_tx_queues && i < port->nb_socks; i++) {
		const struct af_xdp_socket *sock = port->queues[i].sock;
		struct af_xdp_tx_queue *txq = dev->data->tx_queues[i];
		uint32_t max_pkt_len;
		uint16_t max_segs;

		if (sock == NULL || txq == NULL || txq->fd != sock->fd)
			continue;
		af_xdp_frame_tx_limits(&port->frame, mtu, sock->multi_buffer, &max_pkt_len,
				       &max_segs);
		af_xdp_txq_set_frame_limits(txq, max_pkt_len, max_segs);
	}
}
