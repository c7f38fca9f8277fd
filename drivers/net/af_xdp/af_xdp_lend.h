/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_LEND_H
#define AF_XDP_LEND_H

#include <stdint.h>

/*
 * The descriptors a started port lends to secondary processes (its
 * sockets', for the kernel's counters, and the built-in program's counters
 * map), kept apart from the port: the EAL's multi-process thread that
 * answers a secondary (af_xdp_mp.c) reads this table, under its lock, and
 * never the port's sockets, which the port's own thread closes and frees
 * at stop.  The port publishes its descriptors when it has started and
 * withdraws them before it closes any; a borrower gets copies (dup), so a
 * descriptor it sends stays what it was even if the port closes the
 * original at once.
 */

/*
 * Lend port's descriptors: fds[i] for queue index i (n of them, -1 where
 * none) and fallbacks_fd (-1 when none); replaces what the port lent
 * before.  0, or -ENOMEM (the port then lends nothing).
 */
int af_xdp_lend_publish(const char *port, const int *fds, uint16_t n, int fallbacks_fd);

/* Lend no more; when this returns nobody is reading port's descriptors. */
void af_xdp_lend_withdraw(const char *port);

/*
 * Copies of port's descriptors of queue indexes first..first+max-1, into
 * fds[] (-1 where the queue has none); the caller closes them.  Returns how
 * many slots it filled (0 from the last queue on), -ENOENT when the port
 * lends nothing (stopped, or not a port of this process), or -errno when a
 * copy fails (no copy is left open then, and the slots it filled read -1).
 */
int af_xdp_lend_fds(const char *port, uint16_t first, uint16_t max, int *fds);

/* A copy of port's fallbacks_fd in *fd (-1 when none); 0, -ENOENT or -errno. */
int af_xdp_lend_fallbacks_fd(const char *port, int *fd);

#endif /* AF_XDP_LEND_H */
