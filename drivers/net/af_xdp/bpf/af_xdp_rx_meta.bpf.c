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

/*
 * The metadata in front of the frame; -1 when the interface's driver gives
 * the frame no room for it (no data_meta).  The kfuncs write their values
 * only on success: the fields are zeroed first.  The tag's protocol (802.1Q
 * or 802.1ad) is not passed on: either is reported as a stripped tag.
 */
static __always_inline int
write_meta(struct xdp_md *ctx)
{
	struct af_xdp_rx_meta *meta;
	enum xdp_rss_hash_type type = XDP_RSS_TYPE_NONE;
	__be16 proto = 0;
	__u64 ol = 0;

	if (bpf_xdp_adjust_meta(ctx, -(int)sizeof(*meta)) != 0)
		return -1;
	meta = (void *)(long)ctx->data_meta;
	if ((void *)(meta + 1) > (void *)(long)ctx->data)
		return -1;
	meta->zero = 0;
	meta->vlan_tci = 0;
	meta->hash = 0;
	meta->timestamp = 0;
	if ((rx_meta_want & AF_XDP_RX_META_HASH) &&
	    bpf_xdp_metadata_rx_hash(ctx, &meta->hash, &type) == 0)
		ol |= rx_ol_rss_hash;
	if ((rx_meta_want & AF_XDP_RX_META_VLAN) &&
	    bpf_xdp_metadata_rx_vlan_tag(ctx, &proto, &meta->vlan_tci) == 0)
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
 * Without VLAN_STRIP, a tag the interface kept out of the frame's bytes
 * (veth with a VLAN device's tx-vlan-offload on the sending side, a NIC's
 * tag offload) goes back into the frame, after the MAC addresses, as the
 * wire had it: the application sees the frame a NIC without the offload
 * would give it.  -1 when the frame has no headroom for the 4 bytes.
 */
static __always_inline int
inline_vlan_tag(struct xdp_md *ctx)
{
	__be16 proto = 0;
	__u16 tci = 0;
	__u8 *data;

	if (bpf_xdp_metadata_rx_vlan_tag(ctx, &proto, &tci) != 0)
		return 0;	/* no tag out of band */
	if (bpf_xdp_adjust_head(ctx, -4) != 0)
		return -1;
	data = (void *)(long)ctx->data;
	if ((void *)(data + 2 * 6 + 4) > (void *)(long)ctx->data_end)
		return -1;
	__builtin_memmove(data, data + 4, 2 * 6);
	*(__be16 *)(data + 12) = proto;
	*(__be16 *)(data + 14) = bpf_htons(tci);
	return 0;
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
	if (write_meta(ctx) != 0)
		return -1;
	/* After the metadata, which bpf_xdp_adjust_head() moves with the frame. */
	if ((rx_meta_want & AF_XDP_RX_META_VLAN_INLINE) && inline_vlan_tag(ctx) != 0)
		return -1;
	return 0;
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
