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

#endif /* AF_XDP_IFACE_H */
