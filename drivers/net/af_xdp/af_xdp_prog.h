/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_PROG_H
#define AF_XDP_PROG_H

#include "af_xdp.h"
#include "af_xdp_builtin.h"

/* Resolve redirect=auto|direct|map against the running kernel, at probe. */
int af_xdp_prog_choose_redirect(struct af_xdp_port *port);

/*
 * Attach the port's XDP program to its interface (or join the attachment
 * of another port of the process there, or open the XSKMAP of someone
 * else's program), and detach it when the last port leaves.  Before it
 * attaches a program, the copies of the built-in one that processes which
 * no longer exist left on the interface are removed (af_xdp_owner.h).
 */
int af_xdp_prog_attach(struct af_xdp_port *port);
void af_xdp_prog_detach(struct af_xdp_port *port);

/* Steer the interface queue's frames to the socket fd, or stop doing so. */
int af_xdp_prog_add_socket(struct af_xdp_port *port, uint32_t netdev_queue, int fd);
void af_xdp_prog_remove_socket(struct af_xdp_port *port, uint32_t netdev_queue);

/*
 * afxdp_direct's counters: -1 when the direct program is not running;
 * af_xdp_prog_read_fallbacks() reads them (af_xdp_builtin.h).
 */
int af_xdp_prog_fallbacks_fd(const struct af_xdp_port *port);

#endif /* AF_XDP_PROG_H */
