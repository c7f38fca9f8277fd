/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_RX_OFFLOAD_H
#define AF_XDP_RX_OFFLOAD_H

/*
 * Rx offloads through the kernel's XDP metadata functions: the interface's
 * receive hash (RTE_ETH_RX_OFFLOAD_RSS_HASH) and the frame's outermost
 * 802.1Q tag, which it took out of the frame or the program takes out
 * (RTE_ETH_RX_OFFLOAD_VLAN_STRIP); and a CLOCK_TAI stamp the program takes
 * (RTE_ETH_RX_OFFLOAD_TIMESTAMP, the timestamp dynamic field, read_clock in
 * the same clock).  A port that asks for one
 * runs a built-in program bound to its interface (bpf/af_xdp_rx_meta.bpf.c)
 * which writes the values in front of each frame; the receive burst puts
 * them in the mbuf (af_xdp_rx.h).  And the Rx checksum offloads, which need
 * no program: the receive burst checks IPv4 headers itself.
 */

#include <stdbool.h>
#include <stdint.h>

#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "af_xdp.h"
#include "af_xdp_iface.h"

/* The Rx offloads that come from the XDP metadata. */
#define AF_XDP_RX_META_OFFLOADS (RTE_ETH_RX_OFFLOAD_RSS_HASH | RTE_ETH_RX_OFFLOAD_VLAN_STRIP | \
				 RTE_ETH_RX_OFFLOAD_TIMESTAMP)

/*
 * The Rx checksum offloads, offered everywhere: the driver checks the IPv4
 * header itself; L4 checksums are reported UNKNOWN (af_xdp_rx.h says why),
 * offered so that applications which ask for them (examples/l3fwd) start.
 */
#define AF_XDP_RX_CKSUM_OFFLOADS (RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM | \
				  RTE_ETH_RX_OFFLOAD_TCP_CKSUM)

/*
 * At probe: the Rx metadata offloads the port can offer
 * (port->rx_meta_capa), and why (port->rx_meta_capa_why), from its devargs,
 * what netlink said the interface has (f, port->rx_meta_probed) and what
 * of it the kernel loads (port->rx_meta_refused names what it refused).
 * Fixed for the port's life: the kernel is asked once per interface.
 */
void af_xdp_rx_offload_probe(struct af_xdp_port *port, const struct af_xdp_netdev_features *f);

/* The Rx offloads that deliver the AF_XDP_RX_META_* values meta. */
uint64_t af_xdp_rx_meta_offloads(uint32_t meta);

/* The Rx offloads of this file the port offers: metadata and checksums. */
uint64_t af_xdp_rx_offload_capa(const struct af_xdp_port *port);

/* The state block's rx.offloads.capa.reason for why. */
const char *af_xdp_rx_capa_why_name(enum af_xdp_rx_capa_why why);

/* The AF_XDP_RX_META_* values the Rx offloads need. */
uint32_t af_xdp_rx_meta_want(uint64_t offloads);

/* The mbuf flags the values want may set (af_xdp_rx_queue.rx_meta_ol), timestamp_flag among them. */
uint64_t af_xdp_rx_meta_ol_flags(uint32_t want, uint64_t timestamp_flag);

/*
 * At configure: the port's Rx metadata (port->rx_meta_conf, and
 * port->rx_meta until start says otherwise) for the offloads and, with
 * rss (an RSS mq_mode), the RSS hash even if not among them
 * (port->rx_meta_implied); the IPv4 header check (port->rx_cksum); the
 * timestamp dynamic field registered when TIMESTAMP is among them.
 */
int af_xdp_rx_offload_configure(struct af_xdp_port *port, uint64_t offloads, bool rss);

/*
 * Whether the Rx metadata in force is only what the RSS mode implied, so
 * that the port may start without it where the bound program cannot run.
 */
bool af_xdp_rx_offload_only_implied(const struct af_xdp_port *port);

/* The read_clock op: the clock the Rx timestamps are in, CLOCK_TAI in ns. */
int af_xdp_rx_offload_read_clock(struct rte_eth_dev *dev, uint64_t *clock);

/* "rss_hash,vlan_strip,timestamp", "rss_hash", ... or "none", for want. */
const char *af_xdp_rx_meta_names(uint32_t want);

/*
 * Load the built-in Rx-metadata program, which af_xdp_builtin_open() bound
 * to the port's interface (obj), and attach it there alone, in native mode:
 * libxdp 1.3.1's dispatcher cannot run a device-bound program.  *prog: the
 * attached program, for libxdp's detach.  -errno, the cause logged (as a
 * notice where the metadata was only implied: the caller goes on without).
 */
int af_xdp_rx_offload_attach(const struct af_xdp_port *port, struct bpf_object *obj,
			     const char *name, struct xdp_program **prog);

#endif /* AF_XDP_RX_OFFLOAD_H */
