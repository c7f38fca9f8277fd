/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_MP_H
#define AF_XDP_MP_H

#include "af_xdp.h"

/* The primary answers secondaries' requests for descriptors while it has ports. */
int af_xdp_mp_init_primary(void);
void af_xdp_mp_uninit_primary(void);

/*
 * In a secondary: the primary's socket descriptors of queue indexes 0..n-1
 * (-1 where none), and afxdp_direct's counters map (-1 when none); the
 * caller closes them.
 */
void af_xdp_mp_get_fds(const struct af_xdp_port *port, int *fds, uint16_t n);
int af_xdp_mp_get_fallbacks_fd(const struct af_xdp_port *port);

#endif /* AF_XDP_MP_H */
