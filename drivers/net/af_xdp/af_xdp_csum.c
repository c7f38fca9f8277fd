/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * Tx checksum offloads: the checks, tx_pkt_prepare, and the work done per
 * frame by the checksum build of the transmit burst (af_xdp_tx.c).  The
 * rules a request must meet are those of the kernel's Tx metadata, plus
 * what computing in software needs: see af_xdp_tx_csum_check().
 */

#include <errno.h>
#include <stddef.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "af_xdp_csum.h"
#include "af_xdp_iface.h"

/* The mbuf Tx flags the driver knows; any other asks for what it does not offer. */
#define KNOWN_TX_FLAGS \
	(RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK)

enum af_xdp_zc_tx_csum
af_xdp_zc_tx_csum(bool known, uint64_t xsk_features)
{
	if (!known)
		return AF_XDP_ZC_TX_CSUM_UNKNOWN;
	return (xsk_features & NETDEV_GENL_XSK_FLAGS_TX_CHECKSUM) ? AF_XDP_ZC_TX_CSUM_YES :
		AF_XDP_ZC_TX_CSUM_NO;
}

bool
af_xdp_tx_csum_by_kernel(enum af_xdp_tx_csum asked, uint32_t tx_meta_len, bool zero_copy,
			 enum af_xdp_zc_tx_csum zc, const char **why)
{
	if (asked == AF_XDP_TX_CSUM_SW)
		*why = AF_XDP_ARG_TX_CSUM "=sw";
	else if (tx_meta_len < AF_XDP_TX_META_LEN)
		*why = "the kernel refused AF_XDP Tx metadata (it needs Linux 6.11 or later)";
	else if (zero_copy && zc == AF_XDP_ZC_TX_CSUM_UNKNOWN)
		*why = "zero-copy mode, and the kernel does not say whether the interface's transmit "
		       "takes Tx metadata checksum requests (netlink xsk-features, Linux 6.8+)";
	else if (zero_copy && zc != AF_XDP_ZC_TX_CSUM_YES)
		*why = "zero-copy mode, and the interface's transmit ignores Tx metadata checksum "
		       "requests (netlink xsk-features without tx-checksum)";
	else
		return true;
	return false;
}

/* Where a frame's headers lie, as its checksum request names them. */
struct csum_place {
	bool ipv4;
	uint16_t l3_off;
	uint16_t l4_off;
	uint16_t field;		/* of the L4 checksum from l4_off; 0: no L4 checksum asked */
	uint32_t ip_end;	/* where the IP packet ends in the frame */
};

static int
locate(const struct rte_mbuf *m, struct csum_place *p)
{
	const uint64_t ol = m->ol_flags;
	const uint64_t l4 = ol & RTE_MBUF_F_TX_L4_MASK;
	uint32_t l4_hdr_len;

	*p = (struct csum_place){ .field = 0 };
	if ((ol & AF_XDP_TX_CSUM_FLAGS) == 0)
		return 0;
	if ((ol & RTE_MBUF_F_TX_OFFLOAD_MASK & ~KNOWN_TX_FLAGS) != 0 ||
	    l4 == RTE_MBUF_F_TX_SCTP_CKSUM)
		return -ENOTSUP;
	p->ipv4 = (ol & RTE_MBUF_F_TX_IPV4) != 0;
	if (p->ipv4 == ((ol & RTE_MBUF_F_TX_IPV6) != 0))
		return -EINVAL;		/* neither IPv4 nor IPv6, or both */
	if ((ol & RTE_MBUF_F_TX_IP_CKSUM) && !p->ipv4)
		return -EINVAL;
	p->l3_off = m->l2_len;
	p->l4_off = m->l2_len + m->l3_len;
	/* Headers are read and written in place: all in the first segment. */
	if (p->l4_off > m->data_len)
		return -EINVAL;
	if (p->ipv4) {
		const struct rte_ipv4_hdr *ip =
			rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, p->l3_off);

		if (m->l3_len < sizeof(*ip) || rte_ipv4_hdr_len(ip) != m->l3_len)
			return -EINVAL;
		p->ip_end = p->l3_off + rte_be_to_cpu_16(ip->total_length);
	} else {
		const struct rte_ipv6_hdr *ip =
			rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, p->l3_off);

		if (m->l3_len < sizeof(*ip))
			return -EINVAL;
		/* The pseudo-header would need the routing header's final address. */
		if (m->l3_len != sizeof(*ip) && l4 != 0)
			return -ENOTSUP;
		p->ip_end = p->l3_off + sizeof(*ip) + rte_be_to_cpu_16(ip->payload_len);
	}
	if (p->ip_end > m->pkt_len || p->ip_end < p->l4_off)
		return -EINVAL;
	if (l4 == 0)
		return 0;
	if (l4 == RTE_MBUF_F_TX_TCP_CKSUM) {
		p->field = offsetof(struct rte_tcp_hdr, cksum);
		l4_hdr_len = sizeof(struct rte_tcp_hdr);
	} else {
		p->field = offsetof(struct rte_udp_hdr, dgram_cksum);
		l4_hdr_len = sizeof(struct rte_udp_hdr);
	}
	if (p->l4_off + l4_hdr_len > m->data_len || p->l4_off + l4_hdr_len > p->ip_end)
		return -EINVAL;
	return 0;
}

int
af_xdp_tx_csum_check(const struct rte_mbuf *m)
{
	struct csum_place p;

	return locate(m, &p);
}

static inline rte_be16_t *
l4_field(struct rte_mbuf *m, const struct csum_place *p)
{
	return rte_pktmbuf_mtod_offset(m, rte_be16_t *, p->l4_off + p->field);
}

/* The L4 checksum field seeded with the pseudo-header's sum, as the kernel's path wants it. */
static void
seed_pseudo_header(struct rte_mbuf *m, const struct csum_place *p)
{
	*l4_field(m, p) = p->ipv4 ?
		rte_ipv4_phdr_cksum(rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
							    p->l3_off), 0) :
		rte_ipv6_phdr_cksum(rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *,
							    p->l3_off), 0);
}

uint16_t
af_xdp_tx_prepare(void *queue __rte_unused, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	uint16_t i;

	for (i = 0; i < nb_pkts; i++) {
		struct rte_mbuf *m = bufs[i];
		struct csum_place p;
		int ret = locate(m, &p);

		if (ret != 0) {
			rte_errno = -ret;
			return i;
		}
		if ((m->ol_flags & AF_XDP_TX_CSUM_FLAGS) == 0)
			continue;
		if (m->ol_flags & RTE_MBUF_F_TX_IP_CKSUM)
			rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, p.l3_off)->hdr_checksum = 0;
		if (p.field == 0)
			continue;
		seed_pseudo_header(m, &p);
	}
	return i;
}

/* The L4 checksum computed whole, the pseudo-header's included, whatever the field held. */
static void
l4_csum_sw(struct rte_mbuf *m, const struct csum_place *p)
{
	rte_be16_t *field = l4_field(m, p);

	*field = 0;
	if (p->ipv4)
		*field = rte_ipv4_udptcp_cksum_mbuf(m,
			rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, p->l3_off),
			p->l4_off);
	else
		*field = rte_ipv6_udptcp_cksum_mbuf(m,
			rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, p->l3_off),
			p->l4_off);
}

enum af_xdp_csum_done
af_xdp_tx_csum_apply(struct rte_mbuf *m, bool kernel, struct af_xdp_tx_meta *meta)
{
	struct csum_place p;

	if (locate(m, &p) != 0)
		return AF_XDP_CSUM_INVALID;
	if (m->ol_flags & RTE_MBUF_F_TX_IP_CKSUM) {
		struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, p.l3_off);

		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	if (p.field == 0)
		return AF_XDP_CSUM_BY_DRIVER;
	/*
	 * The kernel sums from csum_start to the end of the frame: padding
	 * after the IP packet would be summed too.  The metadata goes in the
	 * headroom of the frame's first mbuf (a copy's has room).
	 */
	if (kernel && p.ip_end == m->pkt_len && m->data_off >= AF_XDP_TX_META_LEN) {
		/*
		 * The kernel sums on from what the field holds: the
		 * pseudo-header's sum, which rte_eth_tx_prepare() seeds, and
		 * seeded again here, so that a frame whose application skipped
		 * it leaves as right as where the driver computes it whole.
		 */
		seed_pseudo_header(m, &p);
		meta->flags = XDP_TXMD_FLAGS_CHECKSUM;
		meta->request.csum_start = p.l4_off;
		meta->request.csum_offset = p.field;
		return AF_XDP_CSUM_BY_KERNEL;
	}
	l4_csum_sw(m, &p);
	return AF_XDP_CSUM_BY_DRIVER;
}
