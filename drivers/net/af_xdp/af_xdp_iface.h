/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_IFACE_H
#define AF_XDP_IFACE_H

/*
 * The kernel network interface behind a port.  Each function returns 0 (or
 * a value) or a negative errno, and leaves the message to its caller, which
 * knows what the user was trying to do.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>

int af_xdp_iface_index(const char *iface);
int af_xdp_iface_mac(const char *iface, struct rte_ether_addr *mac);
int af_xdp_iface_set_mac(const char *iface, const struct rte_ether_addr *mac);
int af_xdp_iface_flags(const char *iface, unsigned int *flags);
int af_xdp_iface_change_flags(const char *iface, unsigned int set, unsigned int clear);
int af_xdp_iface_mtu(const char *iface, unsigned int *mtu);
int af_xdp_iface_set_mtu(const char *iface, unsigned int mtu);
/* The largest MTU the interface takes now (veth: less while its peer has XDP). */
int af_xdp_iface_max_mtu(const char *iface, unsigned int *max_mtu);
int af_xdp_iface_channels(const char *iface, uint32_t *max, uint32_t *configured);
int af_xdp_iface_speed(const char *iface, uint32_t *speed_mbps, bool *full_duplex);
const char *af_xdp_iface_driver(const char *iface, char *buf, size_t len);

/*
 * The kernel's netdev generic netlink family (Linux 6.3), from its UAPI
 * linux/netdev.h, which Debian 12's headers (6.1) lack: the device
 * attributes xdp-rx-metadata-features (6.3) and xsk-features (6.8), and
 * their flags.
 */
#define NETDEV_GENL_NAME			"netdev"
#define NETDEV_GENL_CMD_DEV_GET			1
#define NETDEV_GENL_A_DEV_IFINDEX		1
#define NETDEV_GENL_A_DEV_XDP_RX_METADATA_FEATURES 5
#define NETDEV_GENL_A_DEV_XSK_FEATURES		6
#define NETDEV_GENL_XDP_RX_METADATA_HASH	2
#define NETDEV_GENL_XDP_RX_METADATA_VLAN_TAG	4
#define NETDEV_GENL_XSK_FLAGS_TX_TIMESTAMP	1
#define NETDEV_GENL_XSK_FLAGS_TX_CHECKSUM	2

/*
 * What the netdev family's dev-get says of an interface for AF_XDP: the
 * XDP metadata kfuncs it implements (6.3+) and what its zero-copy transmit
 * takes from Tx metadata (6.8+).  A kernel without an attribute, or one
 * that cannot answer, leaves its _known false.
 */
struct af_xdp_netdev_features {
	bool xdp_rx_metadata_known;
	uint64_t xdp_rx_metadata;	/* NETDEV_GENL_XDP_RX_METADATA_* */
	bool xsk_known;
	uint64_t xsk;			/* NETDEV_GENL_XSK_FLAGS_* */
};

/* One dev-get for ifindex; 0, or -errno where the kernel cannot answer. */
int af_xdp_iface_netdev_features(int ifindex, struct af_xdp_netdev_features *f);

/*
 * What the ports of this process may change on an interface and give back:
 * its promiscuous and all-multicast flags and its MAC address, as they were
 * when the first of them was probed.  af_xdp_iface_keep() adds a user;
 * af_xdp_iface_give_back() takes one away and, for the last, restores them.
 * af_xdp_iface_give_back_all() restores what ports never closed still hold,
 * at exit, tells `report` about each interface it could not restore, and
 * returns how many it did.
 * Nothing is touched on an interface whose name now belongs to another
 * index (renamed, moved to another namespace): -ENODEV.
 */
int af_xdp_iface_keep(const char *iface);
int af_xdp_iface_give_back(const char *iface);
unsigned int af_xdp_iface_give_back_all(void (*report)(const char *iface, int err));

#endif /* AF_XDP_IFACE_H */
