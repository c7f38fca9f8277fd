/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_BUILTIN_H
#define AF_XDP_BUILTIN_H

#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "af_xdp.h"
#include "af_xdp_bpf_abi.h"

/* The built-in programs, one per redirect, and afxdp_direct's counters. */
#define AF_XDP_PROG_MAP_NAME "afxdp_map"
#define AF_XDP_PROG_DIRECT_NAME "afxdp_direct"
/* The same, writing the Rx metadata first, bound to the interface (Rx offloads). */
#define AF_XDP_PROG_META_MAP_NAME "afxdp_meta_map"
#define AF_XDP_PROG_META_DIRECT_NAME "afxdp_meta_dir"
#define AF_XDP_FALLBACKS_MAP_NAME "afxdp_fallbacks"
/* Their XSKMAP, which a user's program (xdp_prog=) must name so too. */
#define AF_XDP_XSKMAP_NAME "xsks_map"

/*
 * The built-in program the port runs, by the redirect chosen at probe and
 * whether its Rx offloads need the metadata (port->rx_meta).
 */
const char *af_xdp_builtin_name(const struct af_xdp_port *port);
/* Whether a program of this name is one of the built-in ones. */
bool af_xdp_builtin_has_name(const char *name);

/*
 * The redirect of a port running the built-in program, from redirect=
 * and what the running kernel offers: port->redirect (and, for direct,
 * the helper number and action value).  -ENOTSUP when direct is asked of
 * a kernel without it.
 */
int af_xdp_builtin_choose_redirect(struct af_xdp_port *port);

/*
 * The built-in object, prepared for the redirect chosen at probe: only the
 * chosen program is loaded; afxdp_direct gets the running kernel's helper
 * number and action value first.  *obj is the caller's to close after
 * *prog (libxdp does not own it).  For a port with Rx offloads
 * (port->rx_meta), the Rx-metadata object, its program bound to the
 * interface: *prog is then NULL until af_xdp_rx_offload_attach() loads
 * and attaches it.
 */
int af_xdp_builtin_open(const struct af_xdp_port *port, struct xdp_program **prog,
			struct bpf_object **obj);

/*
 * Whether the kernel loads the Rx-metadata program bound to the port's
 * interface, fetching the values want (AF_XDP_RX_META_*): the program the
 * port would run, loaded once and closed.  0, or the load's error, with
 * the helper or kernel function the verifier refused (or "unknown") in
 * refused, len bytes.
 */
int af_xdp_builtin_try_bound(const struct af_xdp_port *port, uint32_t want, char *refused,
			     size_t len);

/* afxdp_direct's counters map in the loaded object obj, or -ENOENT. */
int af_xdp_builtin_fallbacks_fd(struct bpf_object *obj);

/* Sum afxdp_direct's per-CPU counters (map fd), in enum af_xdp_fallback order. */
int af_xdp_prog_read_fallbacks(int fd, uint64_t counts[AF_XDP_FALLBACK_MAX]);
void af_xdp_prog_reset_fallbacks(int fd);

#endif /* AF_XDP_BUILTIN_H */
