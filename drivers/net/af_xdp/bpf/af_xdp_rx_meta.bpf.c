/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The built-in programs for ports with Rx offloads: as afxdp_map and
 * afxdp_direct (af_xdp_redirect.bpf.c), but each frame first gets a
 * struct af_xdp_rx_meta in front of it (bpf_xdp_adjust_meta), filled by
 * the XDP metadata kernel functions of the interface: its receive hash and
 * the VLAN tag it took out of the frame, a CLOCK_TAI stamp, laid out as the mbuf holds them,
 * with the mbuf's flags for them (whose values the driver sets before
 * load).  The driver moves them into the mbuf (af_xdp_rx.h).  Without
 * VLAN_STRIP, the tag goes back into the frame instead.
 *
 * VLAN_STRIP is ethdev's: the port strips the frame's outermost 802.1Q tag
 * (TPID 0x8100), whether the interface already took it out of the frame
 * (the tag's kfunc) or it is still in the frame's bytes (a raw sender on
 * veth, a NIC with its tag offload off), and reports its TCI with
 * RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED.  An 802.1ad tag (TPID
 * 0x88a8) is an outer tag, which ethdev strips only under
 * RTE_ETH_RX_OFFLOAD_QINQ_STRIP and reports with RTE_MBUF_F_RX_QINQ and
 * _QINQ_STRIPPED, its TCI in vlan_tci_outer; those flags need an inner
 * tag's TCI in vlan_tci beside it (rte_mbuf_core.h), and the port does not
 * offer QINQ_STRIP: so an 802.1ad tag stays in the frame's bytes (one the
 * interface took out goes back in), with no flag, as under a NIC's
 * VLAN_STRIP alone, and the 802.1Q tag under it is not the outermost.
 *
 * The kernel functions need a device-bound program: the driver loads one
 * of these with the interface's index and BPF_F_XDP_DEV_BOUND_ONLY and
 * attaches it alone, in native mode (af_xdp_rx_offload.c).  A function the
 * interface does not implement answers -EOPNOTSUPP (or -ENODATA for a frame
 * without the value): the field then stays 0 and its flag clear.  rx_meta_want,
 * set before load, says which functions to call: the verifier drops the
 * calls of those not asked for.
 *
 * Names within the kernel's 15 characters, as bpftool shows them.
 */

#include <bpf/bpf_endian.h>

#include "af_xdp_common.bpf.h"

/* The kernel's, from include/net/xdp.h; only its name matters to the call. */
enum xdp_rss_hash_type {
	XDP_RSS_TYPE_NONE = 0,
};

extern int bpf_xdp_metadata_rx_hash(const struct xdp_md *ctx, __u32 *hash,
				    enum xdp_rss_hash_type *rss_type) __ksym;
extern int bpf_xdp_metadata_rx_vlan_tag(const struct xdp_md *ctx, __be16 *vlan_proto,
					__u16 *vlan_tci) __ksym;

/* Set before load: AF_XDP_RX_META_*, the kfuncs the port's offloads need... */
const volatile __u32 rx_meta_want = 0;
/* ...and the mbuf flags that say their values are there (RTE_MBUF_F_RX_*). */
const volatile __u64 rx_ol_rss_hash = 0;
const volatile __u64 rx_ol_vlan = 0;
const volatile __u64 rx_ol_timestamp = 0;	/* the timestamp's dynamic flag */

#define ETH_ALEN 6
#define ETH_P_8021Q 0x8100
#define VLAN_HLEN 4

/*
 * The metadata in front of the frame; -1 when the interface's driver gives
 * the frame no room for it (no data_meta).  The kfuncs write their values
 * only on success: the fields are zeroed first.  tci: the 802.1Q tag
 * stripped (tagged), for VLAN_STRIP.
 */
static __always_inline int
write_meta(struct xdp_md *ctx, int tagged, __u16 tci)
{
	struct af_xdp_rx_meta *meta;
	enum xdp_rss_hash_type type = XDP_RSS_TYPE_NONE;
	__u64 ol = 0;

	if (bpf_xdp_adjust_meta(ctx, -(int)sizeof(*meta)) != 0)
		return -1;
	meta = (void *)(long)ctx->data_meta;
	if ((void *)(meta + 1) > (void *)(long)ctx->data)
		return -1;
	meta->zero = 0;
	meta->vlan_tci = tci;
	meta->hash = 0;
	meta->timestamp = 0;
	if ((rx_meta_want & AF_XDP_RX_META_HASH) &&
	    bpf_xdp_metadata_rx_hash(ctx, &meta->hash, &type) == 0)
		ol |= rx_ol_rss_hash;
	if (tagged)
		ol |= rx_ol_vlan;
	/*
	 * A software stamp, in the clock the port's read_clock gives: veth's
	 * bpf_xdp_metadata_rx_timestamp() answers 0 (no hardware stamp), and
	 * a NIC's would be in its own clock.
	 */
	if (rx_meta_want & AF_XDP_RX_META_TIMESTAMP) {
		meta->timestamp = bpf_ktime_get_tai_ns();
		ol |= rx_ol_timestamp;
	}
	meta->ol_flags = ol;
	return 0;
}

/*
 * A tag the interface kept out of the frame's bytes (veth with a VLAN
 * device's tx-vlan-offload on the sending side, a NIC's tag offload) goes
 * back into the frame, after the MAC addresses, as the wire had it: the
 * application sees the frame a NIC without the offload would give it.  -1
 * when the frame has no headroom for the 4 bytes.
 */
static __always_inline int
push_vlan_tag(struct xdp_md *ctx, __be16 proto, __u16 tci)
{
	__u8 *data;

	if (bpf_xdp_adjust_head(ctx, -VLAN_HLEN) != 0)
		return -1;
	data = (void *)(long)ctx->data;
	if ((void *)(data + 2 * ETH_ALEN + VLAN_HLEN) > (void *)(long)ctx->data_end)
		return -1;
	__builtin_memmove(data, data + VLAN_HLEN, 2 * ETH_ALEN);
	*(__be16 *)(data + 2 * ETH_ALEN) = proto;
	*(__be16 *)(data + 2 * ETH_ALEN + 2) = bpf_htons(tci);
	return 0;
}

/*
 * An 802.1Q tag in the frame's bytes, right after the MAC addresses, taken
 * out: 1 and its TCI, 0 where there is none.  The MAC addresses move
 * forward over it, then the frame's start.
 */
static __always_inline int
pop_vlan_tag(struct xdp_md *ctx, __u16 *tci)
{
	__u8 *data = (void *)(long)ctx->data;
	__u8 macs[2 * ETH_ALEN];

	if ((void *)(data + 2 * ETH_ALEN + VLAN_HLEN) > (void *)(long)ctx->data_end ||
	    *(__be16 *)(data + 2 * ETH_ALEN) != bpf_htons(ETH_P_8021Q))
		return 0;
	*tci = bpf_ntohs(*(__be16 *)(data + 2 * ETH_ALEN + 2));
	__builtin_memcpy(macs, data, sizeof(macs));
	/* 4 bytes fewer of the 14 or more after them: the kernel keeps an Ethernet header. */
	if (bpf_xdp_adjust_head(ctx, VLAN_HLEN) != 0)
		return -1;
	data = (void *)(long)ctx->data;
	if ((void *)(data + sizeof(macs)) > (void *)(long)ctx->data_end)
		return -1;
	__builtin_memcpy(data, macs, sizeof(macs));
	return 1;
}

/*
 * The frame's VLAN tag, before its metadata (bpf_xdp_adjust_head() would
 * move that too): with VLAN_STRIP, 1 and the TCI of an 802.1Q tag out of
 * band or outermost in the bytes, stripped; an 802.1ad tag out of band put
 * back (see the top of the file).  Without (VLAN_INLINE), any tag out of
 * band put back.  0 where nothing is stripped, -1 where a tag cannot go
 * back.
 */
static __always_inline int
take_vlan_tag(struct xdp_md *ctx, __u16 *tci)
{
	__be16 proto = 0;
	__u16 oob = 0;

	if (bpf_xdp_metadata_rx_vlan_tag(ctx, &proto, &oob) == 0) {
		if ((rx_meta_want & AF_XDP_RX_META_VLAN) && proto == bpf_htons(ETH_P_8021Q)) {
			*tci = oob;
			return 1;
		}
		return push_vlan_tag(ctx, proto, oob);
	}
	if (rx_meta_want & AF_XDP_RX_META_VLAN)
		return pop_vlan_tag(ctx, tci);
	return 0;	/* no tag out of band */
}

/*
 * A frame that cannot carry the metadata, or its tag, goes to the kernel's
 * stack rather than to the socket with stale bytes in front of it or
 * without the tag.  No driver that implements the kernel functions lacks
 * the room.
 */
static __always_inline int
prepare(struct xdp_md *ctx)
{
	__u16 tci = 0;
	int tagged = 0;

	if (rx_meta_want & (AF_XDP_RX_META_VLAN | AF_XDP_RX_META_VLAN_INLINE)) {
		tagged = take_vlan_tag(ctx, &tci);
		if (tagged < 0)
			return -1;
	}
	return write_meta(ctx, tagged, tci);
}

SEC("xdp.frags")
int afxdp_meta_map(struct xdp_md *ctx)
{
	if (prepare(ctx) != 0)
		return XDP_PASS;
	return afxdp_redirect_map(ctx);
}

SEC("xdp.frags")
int afxdp_meta_dir(struct xdp_md *ctx)
{
	if (prepare(ctx) != 0)
		return XDP_PASS;
	return afxdp_redirect_direct(ctx);
}
